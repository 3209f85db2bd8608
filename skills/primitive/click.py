"""click: press a button, follow a link, tick a box."""

from __future__ import annotations

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import Selector, attempt


async def click(selector: Selector) -> str:
    """Click one element (button, link, checkbox, tab) and report what changed."""
    active = session()
    target = await locate(active, selector)
    async with watching(active) as changes:
        # partly covered by another element: click the part of it a person can see
        await attempt(target.locator.click(position=target.point), f"click {target.tag}", selector)
    return f"Clicked {target.tag}. {changes.summary()}".strip()
