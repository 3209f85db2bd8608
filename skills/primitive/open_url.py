"""open_url: load a page in the current tab."""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlparse

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.errors import ActionError
from browser_agent.browser.session import session

ALLOWED_SCHEMES = ("http", "https", "file", "about")
# A scheme, but not a host name followed by a port ("localhost:8080").
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:(?!\d)")


def normalize_url(url: str) -> str:
    """Add a scheme to bare host names; refuse schemes a web task never needs."""
    url = url.strip()
    if not url:
        raise ActionError("No URL was given.", kind="invalid")
    if not _SCHEME.match(url):
        local = url.startswith(("localhost", "127.", "[::1]"))
        url = ("http://" if local else "https://") + url
    scheme = urlparse(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise ActionError(f"Refusing to open a {scheme}: URL.", kind="invalid")
    return url


async def open_url(
    url: Annotated[str, "The address to open, e.g. https://example.com/shop."],
) -> str:
    """Open a URL in the current tab and wait for it to load."""
    active = session()
    target = normalize_url(url)
    page = active.current_page()
    try:
        response = await page.goto(target, wait_until="load")
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0]
        raise ActionError(
            f"Could not open {target}: {first}", kind="navigation", selector=None
        ) from exc
    active.observed.clear()
    active.page_version += 1
    status = f" (HTTP {response.status})" if response is not None and response.status >= 400 else ""
    title = await page.title()
    return f"Page loaded: {page.url}{status}, title {title!r}."
