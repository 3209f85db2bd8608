"""press_key_combination: press keys such as Enter, Escape or Control+A."""

from __future__ import annotations

from typing import Annotated

from browser_agent.browser.effects import watching
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import attempt


async def press_key_combination(
    keys: Annotated[str, "Keys joined with '+', e.g. 'Enter', 'Escape', 'Control+A'."],
) -> str:
    """Press a key or key combination on the focused element of the page."""
    active = session()
    page = active.current_page()
    async with watching(active) as changes:
        await attempt(page.keyboard.press(keys.strip()), f"press {keys!r}")
    return f"Pressed {keys.strip()}. {changes.summary()}".strip()
