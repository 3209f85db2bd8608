"""go_back: return to the previous page."""

from __future__ import annotations

from browser_agent.browser.effects import watching
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import attempt


async def go_back() -> str:
    """Go back one page in the tab's history."""
    active = session()
    page = active.current_page()
    async with watching(active) as changes:
        response = await attempt(page.go_back(wait_until="load"), "go back")
    if response is None and not changes.navigated_to:
        return f"There is no earlier page to go back to; still on {page.url}."
    return f"Went back. {changes.summary() or f'Now on {page.url}.'}"
