"""open_url: load a page in the current tab."""

from __future__ import annotations

from typing import Annotated

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.navigation_guard import navigation_refusal
from browser_agent.browser.session import session
from browser_agent.errors import ActionError
from browser_agent.sites.policy import normalize_url


async def open_url(
    url: Annotated[str, "The address to open, e.g. https://example.com/shop."],
) -> str:
    """Open a URL in the current tab and wait for it to load."""
    active = session()
    try:
        target = normalize_url(url, active.settings)
        why = await navigation_refusal(active, target)  # another site: the person may be asked
    except ActionError as exc:  # a scheme or a site the settings refuse
        why = str(exc) if exc.kind == "refused" else None
        if why is None:
            raise
    if why is not None:  # the tab stays where it was: a run may not say it got there
        active.refused = why
        raise ActionError(why, kind="refused", selector=None)
    page = active.current_page()
    notes_before = len(active.notes)
    try:
        response = await page.goto(target, wait_until="load")
    except PlaywrightError as exc:
        refused = " ".join(active.notes[notes_before:])  # a redirect off the allowed sites
        first = refused or str(exc).splitlines()[0]
        raise ActionError(
            f"Could not open {target}: {first}",
            kind="refused" if refused else "navigation",
            selector=None,
        ) from exc
    active.observed.clear()
    active.page_version += 1
    status = f" (HTTP {response.status})" if response is not None and response.status >= 400 else ""
    title = await page.title()
    told = "".join(f" {note}" for note in active.notes[notes_before:])  # a frame refused
    return f"Page loaded: {page.url}{status}, title {title!r}.{told}"
