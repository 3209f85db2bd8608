"""A call put to the person in approval mode: their decision kept with the run, and the
call run as they decided (a correction replaces it, in the history too)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from browser_agent.llm.types import ToolCall
from browser_agent.planner.approval import (
    APPROVED_NOTE,
    CORRECTED,
    Decision,
    Proposal,
    Review,
    rejected,
)
from browser_agent.planner.records import RunRecorder
from browser_agent.planner.tool_calls import Outcome, Tools, execute
from browser_agent.secrets import redact
from browser_agent.store.rows import DecisionRow


@dataclass
class Reviewed:
    """The call that runs, its outcome (None: not run yet) and, for a rejection, the id of
    the decision kept, whose next reply of the model is kept with it."""

    call: ToolCall
    outcome: Outcome | None
    rejection: int | None = None


async def reviewed(
    call: ToolCall,
    approve: Review,
    recorder: RunRecorder,
    tools: Tools,
    context: list[dict[str, Any]],
    messages: list[dict[str, Any]],
) -> Reviewed:
    """Put ``call`` to the person when approval mode covers it, and keep their decision;
    ``context`` is what the model was sent, ``messages`` the history a correction edits."""
    action = await approve.covers(call)
    if action is None:
        return Reviewed(call, None)
    context = redact(context, recorder.secrets)
    names = sorted(name for name in tools.functions if name != "finish")
    decision = await approve.decide(Proposal(call, action, context, names))
    corrected = _corrected(call, decision)
    if corrected:
        verdict = "corrected"
    else:  # a correction that changed nothing is an approval
        verdict = "rejected" if decision.verdict == "rejected" else "approved"
    kept = recorder.add_decision(
        DecisionRow(
            run_id=recorder.run.id,
            step=recorder.step_count + 1,
            verdict=verdict,
            action=action,
            tool=call.name,
            arguments=call.arguments,
            corrected_tool=corrected.name if corrected else None,
            corrected_arguments=corrected.arguments if corrected else None,
            note=decision.note,
            context=json.dumps(context, ensure_ascii=False),
            tools=json.dumps(tools.schemas(), ensure_ascii=False),
        )
    )
    if decision.verdict == "rejected":
        return Reviewed(call, Outcome(rejected(action, decision.note), False, "rejected"), kept)
    ran = corrected or call
    if corrected:
        _replace_call(messages, corrected)
    outcome = await execute(ran, tools)
    note = decision.note.strip()
    if corrected:
        outcome.text += CORRECTED.format(tool=call.name, note=note or "(none)")
    elif note:
        outcome.text += APPROVED_NOTE.format(note=note)
    return Reviewed(ran, outcome)


def _replace_call(messages: list[dict[str, Any]], corrected: ToolCall) -> None:
    """The history shows the corrected call where the model's proposal was."""
    for message in reversed(messages):
        calls = message.get("tool_calls") or []
        for index, item in enumerate(calls):
            if item.get("id") == corrected.id:
                calls[index] = corrected.to_dict()
                return


def _corrected(call: ToolCall, decision: Decision) -> ToolCall | None:
    """The call a correction runs instead of ``call`` (with its id); None when the decision
    corrects nothing, or names the same call."""
    if decision.verdict != "corrected" or decision.call is None:
        return None
    changed = ToolCall(call.id, decision.call.name, decision.call.arguments)
    return None if (changed.name, _parsed(changed)) == (call.name, _parsed(call)) else changed


def _parsed(call: ToolCall) -> object:
    """A call's arguments as their JSON value (as written when they are not JSON)."""
    try:
        return json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return call.arguments
