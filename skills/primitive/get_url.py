"""get_url: say which page the browser is on."""

from __future__ import annotations

from browser_agent.browser.session import session


async def get_url() -> str:
    """Return the current page's URL and title."""
    page = session().current_page()
    return f"The current page is {page.url}, title {await page.title()!r}."
