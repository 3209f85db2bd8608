"""Choosing the one element a step names where several could be it: among same-named
visible elements by the recorded address, the recorded nearby text or the recorded place;
and, when this page of results lists none, on a later page the site links to."""

from __future__ import annotations

from contextlib import suppress
from typing import Any
from urllib.parse import quote, quote_plus

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Locator, Page

from browser_agent.browser.locate import frame_for
from browser_agent.dom.library import run_on_element
from browser_agent.skills.naming import bare
from browser_agent.skills.run_state import skill_run
from browser_agent.skills.targets import Target
from browser_agent.words.text_match import names_next_page


async def _in_reach(element: Locator) -> bool:
    """Visible and within the page, where a person can see and click it: not placed wholly
    above or left of it (a menu's fly-out kept at top: -1000em until hovered), which
    Playwright counts visible though no scrolling brings it into view."""
    return await element.is_visible() and not await run_on_element(element, "offPage")


async def choose(page: Page | Frame, target: Target, selector: str, name: str) -> str:
    """The one element to act on when several visible ones have the role and name the
    command asks for: the one after the recorded nearby text, else the one at the
    recorded place among its equals. The choice is noted for the skill's answer."""
    matches = page.locator(selector)
    try:
        count = await matches.count()
        if count < 2:
            return selector
        shown = [i for i in range(count) if await _in_reach(matches.nth(i))]
    except PlaywrightError:
        return selector
    if len(shown) < 2:
        return f"{selector} >> nth={shown[0]}" if shown else selector
    chosen, how = await _by_address(matches, shown, target, name), ""
    if chosen is not None:
        how = "the one whose address is the recorded one's with the name asked for"
    if chosen is None and target.near:  # the one the recorded text stands closest before
        wanted = " ".join(target.near.split()).casefold()
        distances = {}
        for index in shown:
            before = " ".join((await run_on_element(matches.nth(index), "before", max=400)).split())
            found = before.casefold().rfind(wanted)
            if found >= 0:
                distances[index] = len(before) - found - len(wanted)
        if distances:
            chosen = min(distances, key=lambda index: distances[index])
            how = f"the one after {target.near!r}"
    if chosen is None:
        place = min(target.among, len(shown) - 1)
        chosen, how = shown[place], f"number {place + 1} in page order, as recorded"
    skill_run().notes.append(
        f"{len(shown)} visible {target.role or 'element'}s are named {name!r}; step "
        f"{target.step} used {how}."
    )
    return f"{selector} >> nth={chosen}"


async def _by_address(matches: Any, shown: list[int], target: Target, name: str) -> int | None:
    """Among same-named links, the one whose address is the recorded link's with the name
    asked for in place of the recorded one ("?_sort_desc=count" for "count" is
    "?_sort_desc=species" for "species"), or the recorded address itself for the recorded
    name; None when not exactly one is."""
    href, old, new = target.attributes.get("href", ""), bare(target.name), bare(name)
    if target.role != "link" or not href or not old or not new:
        return None
    spelled = [(old, new), (quote(old), quote(new)), (quote_plus(old), quote_plus(new))]
    wanted = {href} if old == new else {href.replace(a, b) for a, b in spelled if a in href}
    if not wanted:
        return None
    same = []
    for index in shown:
        with suppress(PlaywrightError):
            if (await matches.nth(index).get_attribute("href") or "") in wanted:
                same.append(index)
    return same[0] if len(same) == 1 else None


# How many further pages of results a step turns to for the thing the command names.
RESULT_PAGES = 4


async def on_a_later_page(
    top: Page, target: Target, selector: str, name: str
) -> Page | Frame | None:
    """The page of results, further on, that lists the element the command named: the
    site's link to the next page followed (Next, →, ›) up to RESULT_PAGES times, as a
    person turns pages; None, back where it was, when no page lists it."""
    start, turned = top.url, 0
    while turned < RESULT_PAGES:
        onward = await _next_results(top)
        if onward is None:
            break
        before = top.url
        try:
            await onward.click()
            with suppress(PlaywrightError):  # a page of results a script swapped in
                await top.wait_for_url(lambda url, was=before: url != was, timeout=5_000)
            await top.wait_for_load_state()
        except PlaywrightError:
            break
        turned += 1
        page = await frame_for(top, selector)
        await wait_visible(page, [selector], 2_000.0)
        if await is_shown(page, selector):
            skill_run().notes.append(
                f"Step {target.step}: {name!r} was listed on page {turned + 1} of the results "
                "(the site's link to the next page followed)."
            )
            return page
    if turned:
        with suppress(PlaywrightError):
            await top.goto(start)
    return None


async def _next_results(page: Page) -> Locator | None:
    """The visible link to the next page of results, by its word or arrow (never a
    button: a form's "Next" sends what it holds)."""
    controls = page.locator("a[href], [role=link]")
    try:
        said = await controls.evaluate_all(
            "els => els.map(e => [(e.innerText || '').trim(), e.getAttribute('aria-label') || '',"
            " e.getClientRects().length > 0])"
        )
    except PlaywrightError:
        return None
    for index, (name, label, visible) in enumerate(said):
        if visible and names_next_page(name, label):
            return controls.nth(index)
    return None


async def is_shown(page: Page | Frame, selector: str) -> bool:
    """Whether ``selector`` already shows a visible element (no waiting)."""
    try:
        return await page.locator(selector).filter(visible=True).count() > 0
    except PlaywrightError:
        return False


async def wait_visible(page: Page | Frame, selectors: list[str], timeout: float) -> None:
    """Wait until one of ``selectors`` shows a visible element (or the timeout passes)."""
    union = page.locator(selectors[0]).filter(visible=True)
    for selector in selectors[1:]:
        union = union.or_(page.locator(selector).filter(visible=True))
    with suppress(PlaywrightError):  # timed out, or a selector this page cannot parse
        await union.first.wait_for(state="visible", timeout=timeout)
