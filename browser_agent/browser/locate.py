"""Turning a selector (``[mmid='12']`` or any Playwright selector) into exactly one element."""

from __future__ import annotations

import re
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from playwright.async_api import BrowserContext, Frame, Locator, Page
from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import run_on_element
from browser_agent.errors import ActionError

_MMID = re.compile(r"""^\s*(?:\[\s*mmid\s*=\s*["']?(\d+)["']?\s*\]|mmid\s*=\s*(\d+)|(\d+))\s*$""")


def mmid_of(selector: str) -> str | None:
    """The mmid a selector names (``[mmid='12']``, ``mmid=12`` or ``12``), else None."""
    match = _MMID.match(selector)
    if not match:
        return None
    return next(group for group in match.groups() if group)


@dataclass
class Located:
    """One element, ready to act on, with its opening tag for chatty responses."""

    locator: Locator
    tag: str
    is_password: bool
    point: dict[str, float] | None = None  # a visible point to click when partly covered
    role: str = ""  # its role and accessible name
    name: str = ""


# Per browser context: the element a guard has just checked (exactly one, visible, with the
# recorded identity), by selector, with the page and page version it was checked on.
# The next locate, when it asks for that selector, takes it instead of looking again.
_vouched: WeakKeyDictionary[BrowserContext, dict[str, tuple[Page, int, Located]]] = (
    WeakKeyDictionary()
)


def vouch(active: BrowserSession, selector: str, located: Located) -> None:
    """``located`` is the one element ``selector`` names on the current page now: the next
    ``locate(selector)``, if nothing has changed the page in between, acts on it without
    looking again. An mmid selector is never vouched for (its own check stays)."""
    if mmid_of(selector) is None:
        entry = (active.current_page(), active.page_version, located)
        _vouched[active.context] = {selector: entry}  # only the latest guard's element


def _take_vouched(active: BrowserSession, selector: str) -> Located | None:
    """The element vouched for ``selector`` on this page and page version; any vouch ends
    at the next locate, whichever selector it asks for."""
    entry = _vouched.pop(active.context, {}).get(selector)
    if entry is None:
        return None
    page, version, located = entry
    if page is not active.current_page() or version != active.page_version:
        return None
    return located


async def locate(
    active: BrowserSession, selector: str, *, timeout_ms: float | None = None
) -> Located:
    """Exactly one visible element for ``selector``, or an ActionError saying why not.
    An element a guard has just vouched for is taken as it is (no second look)."""
    if not selector or not selector.strip():
        raise ActionError("No selector was given.", kind="invalid", selector=selector)
    vouched = _take_vouched(active, selector)
    if vouched is not None:
        active.note_acted(active.current_page().url, vouched.role, vouched.name)
        return vouched
    timeout = active.settings.action_timeout_ms if timeout_ms is None else timeout_ms
    mmid = mmid_of(selector)
    if mmid is not None:
        locator = await _by_mmid(active, mmid, selector)
    else:
        locator = await _by_selector(active, selector, timeout)
    tag_name, role, name, is_password, tag, visible, point, _shown = await run_on_element(
        locator, "inspect"
    )
    if not visible:
        raise ActionError(
            f"The element {tag} matched by {selector} is hidden: "
            "a person could not see or use it. Look for a visible control instead.",
            kind="hidden",
            selector=selector,
        )
    if mmid is not None and mmid in active.observed:
        seen_tag, seen_role, seen_name = active.observed[mmid]
        if (seen_tag, seen_role, seen_name) != (tag_name, role, name):
            raise ActionError(
                f"mmid {mmid} named {_short(seen_tag, seen_role, seen_name)} when the page was "
                f"observed, but now names {_short(tag_name, role, name)}: the page changed. "
                "Call get_dom again and use the new mmid.",
                kind="changed",
                selector=selector,
            )
    active.note_acted(active.current_page().url, role, name)
    return Located(locator, tag, is_password, point, role, name)


def _short(tag: str, role: str, name: str) -> str:
    label = f" {name!r}" if name else ""
    return f"a {role or tag}{label}"


async def _by_mmid(active: BrowserSession, mmid: str, selector: str) -> Locator:
    css = f"[mmid='{mmid}']"
    page = active.current_page()
    for frame in page.frames:
        locator = frame.locator(css)
        count = await locator.count()
        if count == 1:
            return locator
        if count > 1:
            raise ActionError(
                f"{count} elements carry mmid {mmid}; call get_dom again.",
                kind="ambiguous",
                selector=selector,
            )
    raise ActionError(
        f"No element has mmid {mmid} on the page now ({page.url}). mmids are valid only "
        "until the page changes: call get_dom again and use the new mmid.",
        kind="not_found",
        selector=selector,
    )


async def frame_for(page: Page, selector: str) -> Page | Frame:
    """Where ``selector`` matches: the page first, then its iframes (CSS does not cross into
    frames), so a selector finds a field inside a contact iframe. The page when none does."""
    children = page.frames[1:]
    if not children:
        return page
    try:
        if await page.locator(selector).count():
            return page
        for frame in children:
            if await frame.locator(selector).count():
                return frame
    except PlaywrightError:
        pass  # not a valid selector: waiting on the page says so
    return page


async def _by_selector(active: BrowserSession, selector: str, timeout: float) -> Locator:
    """The one visible element matching a Playwright selector (waiting for it to show)."""
    page = active.current_page()
    matches = (await frame_for(page, selector)).locator(selector)
    visible = matches.filter(visible=True)
    try:
        await visible.first.wait_for(state="attached", timeout=timeout)
        count = await visible.count()
    except PlaywrightError as exc:
        message = str(exc).splitlines()[0]
        if "Timeout" not in message:
            raise ActionError(
                f"The selector {selector} is not valid: {message}",
                kind="invalid",
                selector=selector,
            ) from exc
        if await matches.count():
            tag = await run_on_element(matches.first, "describe")
            raise ActionError(
                f"The element {tag} matched by {selector} is hidden: "
                "a person could not see or use it. Look for a visible control instead.",
                kind="hidden",
                selector=selector,
            ) from exc
        raise ActionError(
            f"No element matches {selector} on {page.url} (waited {timeout / 1000:g} s).",
            kind="not_found",
            selector=selector,
        ) from exc
    if count > 1:
        shown = [await run_on_element(visible.nth(i), "describe") for i in range(min(count, 3))]
        raise ActionError(
            f"{count} elements match {selector}, e.g. {', '.join(shown)}. "
            "Use a selector that matches exactly one element, such as its mmid.",
            kind="ambiguous",
            selector=selector,
        )
    return visible
