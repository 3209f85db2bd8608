"""find_elements: search the whole page for elements by what they say, beyond any window."""

from __future__ import annotations

from typing import Annotated

from browser_agent.browser.find import find_on_page
from browser_agent.browser.session import session

LIMIT = 20


async def find_elements(
    query: Annotated[
        str, "Words the element's name, label, placeholder or the text around it contain."
    ],
) -> str:
    """Find actionable elements anywhere on the page (not only get_dom's window) whose name,
    label, placeholder or nearby text match; up to 20 lines with mmids to act on."""
    if not query.strip():
        return "Give find_elements some words to look for."
    return await find_on_page(session(), query, LIMIT)
