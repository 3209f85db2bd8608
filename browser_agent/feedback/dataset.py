"""The person's corrections as a fine-tuning dataset: one JSON line per corrected action
(and per action rejected with a note), in the chat shape of OpenAI's fine-tuning API with
tools: ``{"messages": [...], "tools": [...]}``. The messages are the context the model
had proposed the action on, then the action the person wanted: only that last turn is
taught (``weight`` 0 on the earlier assistant turns). Masked like the logs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO

from browser_agent.planner.approval import rejected
from browser_agent.secrets import redact
from browser_agent.store.connection import Store
from browser_agent.store.decisions import decisions
from browser_agent.store.rows import DecisionRow

#: The keys a fine-tuning message may have (the planner's messages carry no others).
MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


@dataclass
class Exported:
    """How many examples were written, by kind, and the rejections left out (the run
    ended before the model answered the note: there is nothing to teach)."""

    corrected: int = 0
    rejected: int = 0
    left_out: int = 0

    @property
    def examples(self) -> int:
        return self.corrected + self.rejected


def export(
    store: Store, out: TextIO, since: datetime | None, secrets: Iterable[str] = ()
) -> Exported:
    """Write the examples of every decision made at ``since`` or later to ``out``; values
    of ``secrets`` (and everything the store masked) are masked."""
    masked = {value for value in secrets if value}
    done = Exported()
    for row in decisions(store, since):
        if row.verdict == "corrected":
            made = corrected_example(row)
        elif row.verdict == "rejected" and row.note.strip():
            made = rejected_example(row)
            if made is None:
                done.left_out += 1
        else:
            continue
        if made is None:
            continue
        out.write(json.dumps(redact(made, masked), ensure_ascii=False) + "\n")
        if row.verdict == "corrected":
            done.corrected += 1
        else:
            done.rejected += 1
    return done


def corrected_example(row: DecisionRow) -> dict[str, Any] | None:
    """The context, then the corrected call as the assistant's answer."""
    context = _context(row)
    if context is None or not row.corrected_tool:
        return None
    wanted = _call(row.corrected_tool, row.corrected_arguments or "{}", _call_id(row))
    return {"messages": [*context, {"role": "assistant", "tool_calls": [wanted]}], **_tools(row)}


def rejected_example(row: DecisionRow) -> dict[str, Any] | None:
    """The context, the rejected call (not taught), the rejection with its note, then the
    model's next reply once it had read the note; None when it never replied."""
    context = _context(row)
    try:
        reply = json.loads(row.followed_by) if row.followed_by else None
    except json.JSONDecodeError:
        reply = None
    if context is None or not isinstance(reply, dict) or reply.get("role") != "assistant":
        return None
    call_id = _call_id(row)
    messages = [
        *context,
        {"role": "assistant", "tool_calls": [_call(row.tool, row.arguments, call_id)], "weight": 0},
        {"role": "tool", "tool_call_id": call_id, "content": rejected(row.action, row.note)},
        _message(reply),
    ]
    return {"messages": messages, **_tools(row)}


def _context(row: DecisionRow) -> list[dict[str, Any]] | None:
    """The messages the model had, earlier assistant turns weighted 0; None when the
    stored context is not a list of messages."""
    try:
        context = json.loads(row.context)
    except json.JSONDecodeError:
        return None
    if not isinstance(context, list) or not all(isinstance(m, dict) for m in context):
        return None
    messages = [_message(m) for m in context]
    return [{**m, "weight": 0} if m.get("role") == "assistant" else m for m in messages]


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """A message with only the keys fine-tuning takes (an empty content left out)."""
    kept = {key: message[key] for key in MESSAGE_KEYS if key in message}
    if kept.get("content") is None and kept.get("tool_calls"):
        kept.pop("content", None)
    return kept


def _call(name: str, arguments: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _call_id(row: DecisionRow) -> str:
    return f"call_{row.run_id}_{row.step}"


def _tools(row: DecisionRow) -> dict[str, Any]:
    """The tools the model was offered, when the row kept them."""
    try:
        tools = json.loads(row.tools)
    except json.JSONDecodeError:
        return {}
    return {"tools": tools} if isinstance(tools, list) and tools else {}
