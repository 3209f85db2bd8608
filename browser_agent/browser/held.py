"""What a field holds now: an input's value, or the text of an editor box.

A rich-text editor (any ``contenteditable`` element: a CMS's block editor, a comment box)
has no value to read; its text is what a person sees in it.
"""

from __future__ import annotations

from playwright.async_api import Locator

# The text of an editor box, as a person reads it: the browser's rendering of the text
# (innerText), with the no-break spaces editors put in written as spaces; None for an
# element that holds no text of its own to type into.
_EDITOR_TEXT = """el => {
  if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) return null;
  if (!el.isContentEditable) return null;
  return el.innerText.replace(/\\u00a0/g, " ").replace(/\\n+$/, "");
}"""


async def editor_text(locator: Locator) -> str | None:
    """The text an editor box (contenteditable) holds; None for a form field or other."""
    return await locator.evaluate(_EDITOR_TEXT)


async def held_value(locator: Locator) -> str:
    """What the element holds: an editor box's text, else the field's value (Playwright's
    input_value, which raises for an element that is neither)."""
    text = await editor_text(locator)
    return text if text is not None else await locator.input_value()


def same_text(held: str, wanted: str) -> bool:
    """Whether an editor box's text is the text typed (spaces and line ends aside)."""
    return held.split() == wanted.split()
