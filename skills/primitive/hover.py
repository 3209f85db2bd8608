"""hover: move the mouse over an element, e.g. to open a menu."""

from __future__ import annotations

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from skills.primitive._common import Selector, attempt


async def hover(selector: Selector) -> str:
    """Hover over one element and report what appeared (menus, tooltips)."""
    active = session()
    target = await locate(active, selector)
    async with watching(active) as changes:
        await attempt(target.locator.hover(), f"hover over {target.tag}", selector)
    return f"Hovered over {target.tag}. {changes.summary()}".strip()
