"""What a field holds now: an input's value, or the text of an editor box.

A rich-text editor (any ``contenteditable`` element: a CMS's block editor, a comment box)
has no value to read; its text is what a person sees in it.
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from browser_agent.dom.library import run_on_located


async def editor_text(locator: Locator) -> str | None:
    """The text an editor box (contenteditable) holds, as a person reads it; None for a
    form field or other."""
    held = await run_on_located(locator, "held")
    return held[1] if held and held[0] == "editor" else None


async def held_value(locator: Locator) -> str:
    """What the element holds: an editor box's text, else the field's value (a label's
    field for its label, as Playwright reads it); PlaywrightError for an element that is
    neither."""
    held = await run_on_located(locator, "held")
    if not held:
        raise PlaywrightError(f"{locator} is no input, text area, list or editor box")
    return held[1]


def same_text(held: str, wanted: str) -> bool:
    """Whether an editor box's text is the text typed (spaces and line ends aside)."""
    return held.split() == wanted.split()
