"""enter_text: type into a text field."""

from __future__ import annotations

from typing import Annotated

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import Located, locate
from browser_agent.browser.session import BrowserSession, session
from skills.primitive._common import Selector, attempt


async def fill(active: BrowserSession, target: Located, text: str, selector: str) -> str:
    """Replace the field's content with ``text``; say what was typed, never a password."""
    if target.is_password:
        active.secrets.add(text)
    await attempt(target.locator.fill(text), f"type into {target.tag}", selector)
    if target.is_password:
        return f"A password ({len(text)} characters, not shown) was entered in {target.tag}."
    return f"Text {text!r} entered in {target.tag}."


async def enter_text(
    selector: Selector,
    text: Annotated[str, "The text to type; it replaces what the field held."],
    press_enter: Annotated[bool, "Press Enter afterwards, e.g. to submit a search."] = False,
) -> str:
    """Type text into an input or textarea, optionally pressing Enter to submit."""
    active = session()
    target = await locate(active, selector)
    async with watching(active) as changes:
        said = await fill(active, target, text, selector)
        if press_enter:
            await attempt(target.locator.press("Enter"), "press Enter", selector)
            said += " Pressed Enter."
    return f"{said} {changes.summary()}".strip()
