"""open_url: load a page in the current tab."""

from __future__ import annotations

import re
from typing import Annotated

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.errors import ActionError
from browser_agent.browser.session import session
from browser_agent.settings import Settings
from browser_agent.site_policy import refusal

# A scheme, but not a host name followed by a port ("localhost:8080").
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:(?!\d)")


def normalize_url(url: str, settings: Settings) -> str:
    """Add a scheme to bare host names; refuse what the settings do not let the browser
    open (other schemes than http and https, sites off the allow-list)."""
    url = url.strip()
    if not url:
        raise ActionError("No URL was given.", kind="invalid")
    if not _SCHEME.match(url):
        local = url.startswith(("localhost", "127.", "[::1]"))
        url = ("http://" if local else "https://") + url
    why = refusal(url, settings)
    if why is not None:
        raise ActionError(why, kind="refused")
    return url


async def open_url(
    url: Annotated[str, "The address to open, e.g. https://example.com/shop."],
) -> str:
    """Open a URL in the current tab and wait for it to load."""
    active = session()
    target = normalize_url(url, active.settings)
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
