"""hover: move the mouse over an element, e.g. to open a menu."""

from __future__ import annotations

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import Selector, attempt

#: Menus open a submenu only after the pointer rests a moment (jQuery UI waits 300 ms).
HOVER_INTENT_MS = 400


async def hover(selector: Selector) -> str:
    """Hover over one element and report what appeared (menus, tooltips)."""
    active = session()
    target = await locate(active, selector)
    async with watching(active) as changes:
        await attempt(target.locator.hover(), f"hover over {target.tag}", selector)
        await active.current_page().wait_for_timeout(HOVER_INTENT_MS)
    return f"Hovered over {target.tag}. {changes.summary()}".strip()
