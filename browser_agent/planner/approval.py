"""Approval mode: an action that submits a form, buys, deletes or sends waits for the
person's yes; a no, with its note, goes back to the planner as the action's answer."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable

from browser_agent.llm.types import ToolCall

# None: approved; text: rejected, with the person's note (possibly empty)
Decide = Callable[[str], Awaitable[str | None]]
Approve = Callable[[ToolCall], Awaitable[str | None]]

WEIGHTY_WORDS = re.compile(
    r"\b(buy|order|pay|purchase|checkout|check out|delete|remove|empty|clear|send|submit|"
    r"post|publish|confirm|place|subscribe|sign up|register|transfer|book)\b",
    re.IGNORECASE,
)
REJECTED = (
    "Not executed: the person rejected this action ({action}). Their note: {note} "
    "Take the note into account: do something else, or finish and say why."
)
# What a page says of an element, read in the page: its name and whether it submits a form.
DESCRIBE = """el => ({
    tag: el.tagName.toLowerCase(),
    name: (el.getAttribute('aria-label') || el.innerText || el.value || el.name || '')
        .trim().replace(/\\s+/g, ' ').slice(0, 80),
    submits: !!el.form && (el.type === 'submit' || el.type === 'image'),
    inForm: !!(el.form || el.closest('form')),
})"""


def approver(decide: Decide) -> Approve:
    """The planner's check before each action: weighty ones are put to ``decide``."""

    async def approve(call: ToolCall) -> str | None:
        action = await weighty_action(call)
        if action is None:
            return None
        note = await decide(action)
        if note is None:
            return None
        return REJECTED.format(action=action, note=note.strip() or "(none)")

    return approve


async def ask_on_stdin(action: str) -> str | None:
    """``run --approve``: the question on stderr (stdout may be JSON), the answer on stdin;
    anything but y or yes rejects, and the next line is the note (end of input: none)."""
    return await asyncio.to_thread(_ask_on_stdin, action)


def _ask_on_stdin(action: str) -> str | None:
    sys.stderr.write(f"\nThe agent wants to: {action}\nApprove? [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return None
    sys.stderr.write("Note for the agent (why not, what instead): ")
    sys.stderr.flush()
    return sys.stdin.readline().strip()


async def weighty_action(call: ToolCall) -> str | None:
    """``call`` said for a person when it submits a form, buys, deletes or sends; None for
    an action that only looks, types or moves around."""
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return None
    if not isinstance(arguments, dict):
        return None
    if call.name in ("click", "enter_text_and_click"):
        selector = arguments.get("selector") or arguments.get("click_selector")
        element = await _element(selector)
        if element and (element["submits"] or WEIGHTY_WORDS.search(element["name"])):
            return f'{call.name}: {element["tag"]} "{element["name"]}"'
    elif call.name == "enter_text" and arguments.get("press_enter") is True:
        element = await _element(arguments.get("selector"))
        if element and element["inForm"]:
            return f'enter_text + Enter: {element["tag"]} "{element["name"]}" (submits its form)'
    elif call.name == "press_key_combination" and "enter" in str(arguments.get("keys")).lower():
        return f"press {arguments.get('keys')} (may submit a form)"
    return None


async def _element(selector: object) -> dict | None:
    """What the current page says of the element ``selector`` names; None when it cannot
    be found (the action itself will say so)."""
    from browser_agent.browser.locate import locate
    from browser_agent.browser.session import session

    if not isinstance(selector, str):
        return None
    try:
        active = session()
        target = await locate(active, selector)
        return await target.locator.evaluate(DESCRIBE)
    except Exception:  # not found, detached, no session: nothing to approve
        return None
