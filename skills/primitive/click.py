"""click: press a button, follow a link, tick a box."""

from __future__ import annotations

import re

from browser_agent.browser.effects import watching
from browser_agent.browser.locate import locate
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import Selector, attempt

_INPUT_TYPE = re.compile(r"""^<input\b[^>]*?\btype=["']?([\w-]+)""", re.IGNORECASE)
TEXT_INPUTS = frozenset({"text", "search", "email", "url", "tel", "number", "password"})
NOT_TYPED = " It is a field for text: a click types nothing into it; enter_text does."


def takes_text(tag: str) -> bool:
    """Whether an element's opening tag is that of a field one types into."""
    if re.match(r"<textarea\b", tag, re.IGNORECASE):
        return True
    if not re.match(r"<input\b", tag, re.IGNORECASE):
        return False
    kind = _INPUT_TYPE.match(tag)
    return kind is None or kind.group(1).lower() in TEXT_INPUTS


async def click(selector: Selector) -> str:
    """Click one element (button, link, checkbox, tab) and report what changed."""
    active = session()
    target = await locate(active, selector)
    async with watching(active) as changes:
        # partly covered by another element: click the part of it a person can see
        await attempt(target.locator.click(position=target.point), f"click {target.tag}", selector)
    # a small model clicks a search box and believes it has searched: say what typing takes
    hint = NOT_TYPED if takes_text(target.tag) else ""
    return f"Clicked {target.tag}. {changes.summary()}".strip() + hint
