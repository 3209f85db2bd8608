"""enter_text_and_click: type into a field, then press a button (search, log in)."""

from __future__ import annotations

from typing import Annotated

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import Selector, attempt
from browser_agent.skills.primitive.enter_text import fill


async def enter_text_and_click(
    text_selector: Selector,
    text: Annotated[str, "The text to type into the field."],
    click_selector: Selector,
) -> str:
    """Type text into one element and then click another, e.g. a search box and its button."""
    active = session()
    field = await locate(active, text_selector)
    button = await locate(active, click_selector)
    async with watching(active) as changes:
        said = await fill(active, field, text, text_selector)
        await attempt(button.locator.click(), f"click {button.tag}", click_selector)
    return f"{said} Clicked {button.tag}. {changes.summary()}".strip()
