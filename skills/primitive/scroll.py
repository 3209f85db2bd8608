"""scroll: move the page to see more of it."""

from __future__ import annotations

from typing import Annotated, Literal

from browser_agent.browser.effects import watching
from browser_agent.browser.session import session
from browser_agent.skills.primitive._common import attempt

_SCRIPTS = {
    "down": "window.scrollBy(0, window.innerHeight * 0.8)",
    "up": "window.scrollBy(0, -window.innerHeight * 0.8)",
    "top": "window.scrollTo(0, 0)",
    "bottom": "window.scrollTo(0, document.documentElement.scrollHeight)",
}


async def scroll(
    direction: Annotated[
        Literal["down", "up", "top", "bottom"], "Where to scroll: a screen down or up, or an end."
    ] = "down",
) -> str:
    """Scroll the page and say where it now is; lazily loaded content is reported."""
    active = session()
    page = active.current_page()
    async with watching(active) as changes:
        await attempt(page.evaluate(_SCRIPTS[direction]), f"scroll {direction}")
    position = await page.evaluate(
        "[Math.round(window.scrollY), document.documentElement.scrollHeight, window.innerHeight]"
    )
    y, height, view = position
    return (
        f"Scrolled {direction}: now showing {y}-{min(y + view, height)} px of {height} px. "
        f"{changes.summary()}"
    ).strip()
