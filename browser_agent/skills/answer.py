"""A skill's answer when its steps are done: what it did, what it decided on its own, and
where the browser is, given only when the final page shows the command done (its values
shown, or what a removing command named gone)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import suppress
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.browser.locate import frame_for
from browser_agent.browser.session import session
from browser_agent.browser.tracing import step_group
from browser_agent.skills.end_state import EndNotShown, end_state
from browser_agent.skills.run_state import skill_run
from browser_agent.words.values import skill_values

# A command that starts with one of these removes what it names: its end is done when
# what it named is gone from the page it was on, not when the page shows its name.
REMOVING = frozenset(
    {"remove", "delete", "drop", "erase", "trash", "discard", "uninstall", "unregister"}
)


async def done(template: str, **values: str | list[str] | int) -> str:
    """The skill's answer: what it did (the template filled in), how it told apart
    same-named elements, and where the browser is; EndNotShown when the final page does
    not show the values it was given (see end_state), whatever its steps did."""

    def filled(match: re.Match[str]) -> str:
        value = values.get(match.group(1), match.group(0))
        return ", ".join(value) if isinstance(value, list) else str(value)

    said = re.sub(r"\{(\w+)\}", filled, template)
    said = said.replace("{{", "{").replace("}}", "}")
    active = session()
    await step_group(active.context, None)  # the last step's actions end here
    run = skill_run(active.context)
    notes = "".join(f" {note}" for note in run.notes)
    run.notes.clear()
    page = active.current_page()
    answer = f"{said}{notes} Final page: {page.url} (title {await page.title()!r})."
    named, run.named = run.named, {}
    if said.split(" ", 1)[0].lower() in REMOVING and named:
        gone = await _gone(page, named.values())
        if gone is not None:
            raise EndNotShown(gone, answer, ())
        return f"{answer} What it named is no longer on the page."
    end = await end_state(
        page,
        skill_values(values),
        active.secrets,
        command=said,
        refused=active.refused,
        acted=active.acted,
    )
    if not end.shown:
        raise EndNotShown(end.said(), answer, end.missing, bool(end.wrong or end.status))
    return answer


async def _gone(page: Page, named: Iterable[tuple[str, str]]) -> str | None:
    """Why the final page does not show the elements found by the command's values gone
    (it is another page than theirs, an error page, or still shows one); None when it
    shows them gone."""
    status = 0
    with suppress(PlaywrightError):  # a page still on its way: judged by what it shows
        status = await page.evaluate(
            "() => (performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0"
        )
    if status >= 400:
        return f"the final page {page.url} is an error page (HTTP {status})."
    for url, selector in named:
        if urlsplit(url).path != urlsplit(page.url).path:
            listed = await _listed_again(url, selector)
            if listed is None:
                return f"the final page {page.url} is not {url}, where what it removes was shown."
            if listed:
                return f"{url}, read again, still shows what it was to remove ({selector})."
            continue
        if await (await frame_for(page, selector)).locator(selector).count():
            return f"the final page {page.url} still shows what it was to remove ({selector})."
    return None


async def _listed_again(url: str, selector: str) -> bool | None:
    """Whether the page where the removed thing was shown (a list, a search's results)
    still shows it when read again, in a tab of its own; None when it cannot be read (an
    error, an address that is not a page)."""

    async def listed(other: Page) -> bool:
        return await other.locator(selector).count() > 0

    return await session().read_aside(url, listed)
