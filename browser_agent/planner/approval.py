"""Approval mode: an action that submits a form, buys, deletes or sends (or, reviewing,
every action) waits for the person, who approves it, rejects it or corrects it (another
element, other text, another tool: the corrected action is what runs). A note goes back
to the planner; each decision is kept in the run's records (see ``planner.records``)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from browser_agent.llm.types import ToolCall

# None: approved; text: rejected, with the person's note (possibly empty)
Ask = Callable[[str], Awaitable[str | None]]

WEIGHTY_WORDS = re.compile(
    r"\b(buy|order|pay|purchase|checkout|check out|delete|remove|empty|clear|send|submit|"
    r"post|publish|confirm|place|subscribe|sign up|register|transfer|book)\b",
    re.IGNORECASE,
)
# Reviewing every action still leaves out what talks to the person, recalls or ends (and
# the primitives that only look: OBSERVATION_ONLY).
NOT_REVIEWED = frozenset({"ask_user", "tell_user", "recall", "finish"})
REJECTED = (
    "Not executed: the person rejected this action ({action}). Their note: {note} "
    "Take the note into account: do something else, or finish and say why."
)
CORRECTED = (
    "\n(The person changed the action you proposed ({tool}) to this one before it ran. "
    "Their note: {note})"
)
APPROVED_NOTE = "\n(The person approved this action. Their note: {note})"
# What a page says of an element, read in the page: its name and whether it submits a form.
DESCRIBE = """el => ({
    tag: el.tagName.toLowerCase(),
    name: (el.getAttribute('aria-label') || el.innerText || el.value || el.name || '')
        .trim().replace(/\\s+/g, ' ').slice(0, 80),
    submits: !!el.form && (el.type === 'submit' || el.type === 'image'),
    inForm: !!(el.form || el.closest('form')),
})"""


@dataclass
class Proposal:
    """An action the model proposed, as the person decides on it: the call, what it does
    in words, the context the model proposed it on (masked) and the tools it may become."""

    call: ToolCall
    action: str
    context: list[dict[str, Any]] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """The person's answer to a proposal; ``call`` is the corrected action to run."""

    verdict: Literal["approved", "rejected", "corrected"]
    note: str = ""
    call: ToolCall | None = None

    def refusal(self) -> str | None:
        """As a yes/no question's answer: None when approved, else the note."""
        return None if self.verdict == "approved" else self.note


Decide = Callable[[Proposal], Awaitable[Decision]]


@dataclass
class Review:
    """Approval mode for a run: which actions wait (weighty ones, or ``every`` one), who
    decides, and who sees the context of each model call before it is sent (``preview``)."""

    decide: Decide
    every: bool = False
    preview: Callable[[list[dict[str, Any]]], None] | None = None

    async def covers(self, call: ToolCall) -> str | None:
        """``call`` said for the person when it must wait for them; None when it runs."""
        from browser_agent.skills.primitive import OBSERVATION_ONLY  # the browser's, at run time

        weighty = await weighty_action(call)
        if weighty is not None or not self.every or call.name in NOT_REVIEWED | OBSERVATION_ONLY:
            return weighty
        return f"{call.name} {call.arguments[:300]}"


def approver(ask: Ask, every: bool = False) -> Review:
    """Approval mode through a yes/no question (``run --approve`` on stdin): approve or
    reject, with a note."""

    async def decide(proposal: Proposal) -> Decision:
        note = await ask(proposal.action)
        return Decision("approved") if note is None else Decision("rejected", note.strip())

    return Review(decide, every)


def rejected(action: str, note: str) -> str:
    """What the planner reads of an action the person rejected."""
    return REJECTED.format(action=action, note=note.strip() or "(none)")


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
