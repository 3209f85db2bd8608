"""get_dom: a compact view of the page with mmids to act on."""

from __future__ import annotations

from typing import Annotated, Literal

from browser_agent.browser.observe import observe_page
from browser_agent.browser.session import session


async def get_dom(
    content_type: Annotated[
        Literal["text_only", "input_fields", "all_fields"],
        "text_only: the visible text; input_fields: things to type into or press, with mmids; "
        "all_fields: interactive elements plus the text around them, with mmids.",
    ] = "all_fields",
    page: Annotated[
        int,
        "0: the window starting at the viewport; N: the Nth window of the page from the top; "
        "-1: the last window (the end of the page).",
    ] = 0,
) -> str:
    """Look at the current page, one window of it: the header says how many elements lie
    above and below. Each element line starts with its [mmid], valid until the page changes."""
    observation = await observe_page(session(), content_type, page=page)
    return observation.text
