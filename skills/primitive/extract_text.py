"""extract_text: read the text of an element or of the whole page."""

from __future__ import annotations

from typing import Annotated

from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.dom.page_content import fenced, neutralised
from browser_agent.skills.primitive._common import attempt

MAX_CHARS = 4_000


async def extract_text(
    selector: Annotated[
        str, "The element to read ([mmid='12'] or a Playwright selector); empty for the page."
    ] = "",
) -> str:
    """Return the visible text of one element, or of the whole page when no selector is
    given, quoted between the page-content markers."""
    active = session()
    if not selector.strip():
        page = active.current_page()
        text = await attempt(page.inner_text("body"), "read the page")
        where = f"the page {page.url}"
    else:
        target = await locate(active, selector)
        text = await attempt(target.locator.inner_text(), f"read {target.tag}", selector)
        where = target.tag
    text = " ".join(text.split())
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f" … ({len(text) - MAX_CHARS} more characters)"
    return f"Text of {neutralised(where)}:\n{fenced(repr(text))}"
