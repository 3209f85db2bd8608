"""The end state of a *create X with Y* or *edit X to add Y* clause (and of a setting):
X and every Y shown by the page itself, not only by a form's field still holding them,
unless a fresh load of the page's address gives them back (an editor that saves in place).
Part of the end-state check (:mod:`browser_agent.skills.end_state`)."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from browser_agent.browser.session import session
from browser_agent.errors import BrowserError
from browser_agent.skills.page_seen import Seen, read_page
from browser_agent.words.asks import Ask
from browser_agent.words.text_match import normal, shows


def _unsaid(ask: Ask, seen: Seen, hidden: set[str]) -> list[str]:
    """*create X with Y*, *edit X to add Y*: X and the Ys the page itself does not show."""
    values = [normal(value) for value in (ask.target, *ask.values)]
    return [v for v in values if v and v not in hidden and not any(shows(t, v) for t in seen.own)]


def held_only(ask: Ask, seen: Seen, hidden: set[str]) -> list[str]:
    """The values of a *create* or *edit* clause that the page shows only in its fields,
    typed or chosen in a drop-down, on whichever of its tabs (none when it shows them all,
    or does not hold one of them at all)."""
    if ask.kind not in ("create", "edit"):
        return []
    unsaid = _unsaid(ask, seen, hidden)
    fields = [*seen.typed, *seen.chosen, *seen.fields]
    if all(any(shows(held, value) for held in fields) for value in unsaid):
        return unsaid
    return []


def saved(ask: Ask, seen: Seen, hidden: set[str]) -> tuple[str, str]:
    """*create X with Y*, *edit X to add Y*: X and each Y shown by the page itself."""
    unsaid = _unsaid(ask, seen, hidden)
    if not unsaid:
        return "", ""
    if held_only(ask, seen, hidden):
        return "", f"holds {unsaid[0]!r} only in a form's field: it was not saved"
    return "", f"does not show {unsaid[0]!r} (not in its title, headings or text)"


# How long a fresh load of an editor's address is given to show what it holds.
GIVEN_BACK_S = 4.0


async def given_back(seen: Seen, values: list[str]) -> bool:
    """Whether a fresh load of the final page's address (a tab of its own, a GET) shows
    or holds every one of ``values`` (in any of its fields, on whichever of its tabs),
    which the final page holds only in its fields: the application kept them, as an
    editor or a settings page that saves in place does ("Update", "Publish", "Save" leave
    the form on screen). A form that was not sent, or was refused, loads again
    empty or as it was. The fresh page is read until they show, up to GIVEN_BACK_S (an
    editor may fill its fields by script after the page's load)."""

    async def shown(page: Page) -> bool:
        waited = 0.0
        while True:
            fresh = await read_page(page)
            kept = [*fresh.own, *fresh.typed, *fresh.chosen, *fresh.fields]
            if all(any(shows(text, value) for text in kept) for value in values):
                return True
            if waited >= GIVEN_BACK_S:
                return False
            await page.wait_for_timeout(500)
            waited += 0.5

    try:
        return bool(await session().read_aside(seen.url, shown))
    except (BrowserError, PlaywrightError):  # no session, or the tab went away
        return False
