"""enter_text: type into a text field or a rich-text editor's box (contenteditable)."""

from __future__ import annotations

import contextlib
import re
from typing import Annotated

from playwright.async_api import Error as PlaywrightError

from browser_agent.browser.effects import watching
from browser_agent.browser.held import editor_text, held_value, same_text
from browser_agent.browser.locate import Located, locate
from browser_agent.browser.session import BrowserSession, session
from browser_agent.browser.values import field_value
from browser_agent.dom.library import count_and_run, run_on_element, run_on_page
from browser_agent.errors import ActionError
from browser_agent.secrets import filled
from browser_agent.skills.primitive._common import Selector, attempt

_TYPE = re.compile(r"""^<input\b[^>]*\btype=["']?([\w-]+)""", re.IGNORECASE)


async def fill(
    active: BrowserSession, target: Located, text: str, selector: str, kept: str = ""
) -> str:
    """Replace the field's content with ``text`` (after ``kept``, what it held, when the
    text is added to it); say what was typed, never a secret. ``{NAME}`` placeholders are
    typed as their secrets' values. Dates and times are written in the format their field
    holds ("7:55 PM" -> "19:55")."""
    kind = _TYPE.search(target.tag)
    try:
        typed = filled(text, active.secret_values)
        value = field_value(kind.group(1), typed) if kind else typed
        value = kept + value
    except ValueError as exc:  # SecretError included: a secret nobody configured
        raise ActionError(f"Could not type into {target.tag}: {exc}.", kind="invalid") from exc
    if target.is_password:
        active.secrets.add(typed)
    page = active.current_page()
    await run_on_page(page, "guard")
    await attempt(target.locator.fill(value), f"type into {target.tag}", selector)
    holds = await _holds(target, value)
    if not holds and await _is_editor(target):
        await _type_in_editor(target, value, selector)
        holds = await _holds(target, value)
    interrupted = ""
    if not holds:  # a popup took the focus and the text with it
        closer = await run_on_page(page, "interruption", look=True)
        if closer:
            await attempt(page.locator("[data-browser-agent-close]").click(), "close the popup")
            await attempt(target.locator.fill(value), f"type into {target.tag}", selector)
            interrupted = (
                f" A popup took the focus; it was closed with {closer} and the text typed again."
            )
        if not await _holds(target, value):
            shown = "the password" if target.is_password or typed != text else repr(text)
            return f"Typed {shown} into {target.tag}, but the field did not keep it.{interrupted}"
    else:
        await run_on_page(page, "interruption", look=False)
    if target.is_password:
        return (
            f"A password ({len(typed)} characters, not shown) was entered in {target.tag}."
            f"{interrupted}"
        )
    added = " after what it held" if kept else ""
    if typed != text:  # a secret went in: only its placeholder is said
        return f"Text {text!r} entered in {target.tag}{added} (secrets not shown).{interrupted}"
    written = f" (written as {value!r})" if value != kept + text else ""
    return f"Text {text!r}{written} entered in {target.tag}{added}.{interrupted}"


async def _holds(target: Located, value: str) -> bool:
    """Whether the field (or editor box) holds ``value`` now (true for what has no value
    to read, as a field the page replaced as it was typed into), in one round trip."""
    try:
        count, held = await count_and_run(target.locator, "held")
    except PlaywrightError:
        return True
    if count != 1 or held is None:  # gone, or not a field: nothing to compare
        return True
    kind, text = held
    return same_text(text, value) if kind == "editor" else text == value


async def _type_in_editor(target: Located, value: str, selector: str) -> None:
    """Type into an editor box as a person does: focus it, select all it holds, type (for
    editors whose script ignores text put in at once)."""
    await attempt(target.locator.focus(), f"focus {target.tag}", selector)
    await attempt(target.locator.press("ControlOrMeta+a"), "select the text", selector)
    await attempt(target.locator.press_sequentially(value), f"type into {target.tag}", selector)


async def _is_editor(target: Located) -> bool:
    try:
        return await editor_text(target.locator) is not None
    except PlaywrightError:
        return False


async def enter_text(
    selector: Selector,
    text: Annotated[str, "The text to type; it replaces what the field held."],
    press_enter: Annotated[bool, "Press Enter afterwards, e.g. to submit a search."] = False,
    append: Annotated[
        bool, "Add the text after what the field already holds instead of replacing it."
    ] = False,
) -> str:
    """Type text into an input, textarea or editor box (contenteditable), optionally
    pressing Enter to submit; with append, after what it holds (a line of its own in
    a text area or editor box)."""
    active = session()
    target = await locate(active, selector)
    kept = await _kept(target) if append else ""
    async with watching(active) as changes:
        said = await fill(active, target, text, selector, kept)
        if press_enter:
            said += await _press_enter(active, target, text, selector)
        elif await _suggests(target):
            await _suggestions_shown(active)
    return f"{said} {changes.summary()}".strip()


async def _press_enter(active: BrowserSession, target: Located, text: str, selector: str) -> str:
    """Press Enter in the field. A page may replace the field while it is typed into (a
    script's search box takes the place of the plain one, text and focus with it), before
    or while Enter is pressed: Enter then goes where the focus went, when the focused field
    ends with the text typed."""
    if await target.locator.count() == 1:
        try:
            await attempt(target.locator.press("Enter"), "press Enter", selector)
            return " Pressed Enter."
        except ActionError:
            if await target.locator.count() == 1:  # still there: the press itself failed
                raise
    focused = await active.current_page().evaluate(
        "() => { const el = document.activeElement;"
        " return el && 'value' in el ? String(el.value) : null; }"
    )
    typed = filled(text, active.secret_values).split()
    if focused is None or not typed or focused.split()[-len(typed) :] != typed:
        raise ActionError(
            f"Could not press Enter: {target.tag} left the page as it was typed into, "
            "and no field holding the text has the focus.",
            kind="changed",
            selector=selector,
        )
    await attempt(active.current_page().keyboard.press("Enter"), "press Enter", selector)
    return " The page replaced the field as it was typed into: Enter went where the focus went."


async def _kept(target: Located) -> str:
    """What the field holds, and what separates it from text added after it: a new line
    in a text area or editor box, a space in a one-line field."""
    try:
        held = await held_value(target.locator)
    except PlaywrightError:
        return ""
    if not held.strip():
        return ""
    lines = target.tag.lower().startswith("<textarea") or await _is_editor(target)
    gap = "\n" if lines else " "
    return held if held.endswith(gap) else held + gap


#: How long a field that suggests as one types may take to show its suggestions.
SUGGESTIONS_MS = 1000


async def _suggests(target: Located) -> bool:
    """Whether the field offers suggestions as one types (an autocomplete)."""
    try:
        return bool(await run_on_element(target.locator, "suggests"))
    except PlaywrightError:
        return False


async def _suggestions_shown(active: BrowserSession) -> None:
    """Wait (briefly) until the page adds something: the suggestions, or nothing at all."""
    with contextlib.suppress(PlaywrightError):
        await active.current_page().wait_for_function(
            "() => { const s = window.__browserAgentWatch; return !s || s.added.length > 0; }",
            timeout=SUGGESTIONS_MS,
        )
