"""enter_text: type into a text field."""

from __future__ import annotations

import re
from typing import Annotated

from browser_agent.browser.effects import watching
from browser_agent.browser.errors import ActionError
from browser_agent.browser.locate import Located, locate
from browser_agent.browser.session import BrowserSession, session
from browser_agent.browser.values import field_value
from skills.primitive._common import Selector, attempt

_TYPE = re.compile(r"""^<input\b[^>]*\btype=["']?([\w-]+)""", re.IGNORECASE)


async def fill(active: BrowserSession, target: Located, text: str, selector: str) -> str:
    """Replace the field's content with ``text``; say what was typed, never a password.
    Dates and times are written in the format their field holds ("7:55 PM" -> "19:55")."""
    if target.is_password:
        active.secrets.add(text)
    kind = _TYPE.search(target.tag)
    try:
        value = field_value(kind.group(1), text) if kind else text
    except ValueError as exc:
        raise ActionError(f"Could not type into {target.tag}: {exc}.", kind="invalid") from exc
    await attempt(target.locator.fill(value), f"type into {target.tag}", selector)
    if target.is_password:
        return f"A password ({len(text)} characters, not shown) was entered in {target.tag}."
    written = f" (written as {value!r})" if value != text else ""
    return f"Text {text!r}{written} entered in {target.tag}."


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
