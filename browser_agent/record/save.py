"""A recording written down as a run: chat log, metadata and Run/Step rows.

The log has the shape of a planner's (the command in the first user message, each action
as an assistant tool call and its tool answer, a closing ``finish``), so ``harvest``
reads it as any other run. The command is masked like a planner's: the passwords the
person typed, configured secrets and values after "password" become ``{NAME}``
placeholders, and every value of theirs is masked in all that is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from browser_agent.planner.prompts import task_message
from browser_agent.planner.records import RunRecorder
from browser_agent.record.actions import Action
from browser_agent.record.session import Recording
from browser_agent.secrets import masked_command
from browser_agent.settings import Settings
from browser_agent.store.rows import StepRow

#: The model a recorded run names: a person showed it.
MODEL = "demonstration"


@dataclass
class SavedRecording:
    """Where a recording went: the run's id, its chat log and the command it keeps."""

    run_id: str
    log_path: str
    command: str
    steps: int


def command_for(recording: Recording, command: str) -> tuple[str, dict[str, str]]:
    """The command as it is kept (every secret value replaced by its placeholder) and the
    secrets by name: typed passwords, configured ones and those the command gives."""
    known = {**recording.secrets, **{name: value for value, name in recording.passwords.items()}}
    masked, given = masked_command(command.strip(), known)
    return masked, {**known, **given}


def _calls(actions: list[Action]) -> list[tuple[str, dict[str, Any], str, str]]:
    """(tool, arguments, answer, url) of each call: a get_dom before each action on an
    element, the observation it names its mmid from."""
    calls = []
    for action in actions:
        if action.observation is not None:
            looked = {"content_type": "all_fields"}
            calls.append(("get_dom", looked, action.observation, action.url))
        calls.append((action.tool, action.arguments, action.answer(), action.navigated_to or ""))
    return calls


def save_recording(
    recording: Recording, command: str, settings: Settings, engine: Engine
) -> SavedRecording:
    """Write the recording as a succeeded run of ``command``, secrets masked everywhere."""
    if not command.strip():
        raise ValueError("The command is empty: say what the demonstration does.")
    if not any(a.tool != "open_url" for a in recording.actions):
        raise ValueError("Nothing was recorded: no click, typing or choice on a page.")
    kept, secrets = command_for(recording, command)
    recorder = RunRecorder.start(engine, settings.logs_dir, kept, recording.start_url, MODEL)
    recorder.secrets.update(v for v in secrets.values() if v)
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": task_message(kept, recording.start_url)}
    ]
    for number, (tool, arguments, answer, url) in enumerate(_calls(recording.actions), 1):
        call_id = f"call_{number}"
        text = json.dumps(arguments, ensure_ascii=False)
        function = {"name": tool, "arguments": text}
        call = {"id": call_id, "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": answer})
        step = StepRow(run_id=recorder.run.id, index=0, tool=tool, arguments=text, response=answer)
        step.url_after = url or None
        recorder.add_step(step)
    answer = f"Demonstrated {kept!r} in {len(recording.actions)} actions."
    finish = {"answer": answer, "success": True}
    call = {
        "id": "call_finish",
        "type": "function",
        "function": {"name": "finish", "arguments": json.dumps(finish, ensure_ascii=False)},
    }
    messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    messages.append({"role": "tool", "tool_call_id": "call_finish", "content": "Finished."})
    recorder.finish(messages, "succeeded", answer=answer, final_url=recording.final_url)
    return SavedRecording(recorder.run.id, str(recorder.log_path), kept, recorder.step_count)
