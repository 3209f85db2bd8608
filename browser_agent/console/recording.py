"""Recordings started from the console: a person shows a task in a browser window while
its live page lists each action as it is recorded; Stop (or closing the window) ends it,
and it is saved as a run and harvested as ``browser-agent record`` does."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets

from sqlalchemy import Engine

from browser_agent.console.runs import LiveRun, RunBoard, shots_root, step_target
from browser_agent.record.actions import Action
from browser_agent.record.save import save_recording
from browser_agent.record.teach import (
    CannotRecord,
    harvest_saved,
    password_notes,
    record_in_window,
)
from browser_agent.secrets import configured, masked_command

logger = logging.getLogger("browser_agent.console")


def start_recording(
    board: RunBoard, engine: Engine, command: str, start_url: str | None
) -> LiveRun:
    """Record a demonstration of ``command`` from ``start_url`` as a task of this process;
    the LiveRun (shown with its secrets masked) follows it."""
    ended = asyncio.Event()
    shown, _given = masked_command(command, configured())
    key = secrets.token_hex(8)
    live = LiveRun(
        key,
        shown,
        start_url,
        shots_root(board.settings.workspace),
        recording=True,
        on_stop=ended.set,
    )
    board.runs[key] = live
    task = _demonstrate(live, command, ended, board, engine)
    live.task = asyncio.create_task(task, name=f"console-recording-{key}")
    return live


async def _demonstrate(
    live: LiveRun, command: str, ended: asyncio.Event, board: RunBoard, engine: Engine
) -> None:
    """Record until the end, then save and harvest, publishing each action and the end."""
    settings = board.settings
    live.publish("started", command=live.command, start_url=live.start_url)

    def recorded(action: Action) -> None:
        target = step_target(json.dumps(action.arguments))
        index = sum(1 for event in live.events if event["kind"] == "step")
        live.publish(
            "step", index=index, tool=action.tool, target=target, ok=True, response=action.response
        )

    try:
        recording = await record_in_window(settings, live.start_url, configured(), ended, recorded)
        saved = save_recording(recording, command, settings, engine)
    except CannotRecord as exc:  # no window, no browser, a start page that does not open
        _end(live, "failed", str(exc))
        return
    except ValueError as exc:  # nothing was recorded
        _end(live, "not saved", str(exc))
        return
    except Exception as exc:  # said on the page in one line; the console goes on
        logger.warning("console recording %s ended with an error: %s", live.key, exc)
        _end(live, "failed", _one_line(exc))
        return
    live.run_id = saved.run_id
    live.publish("stored", run_id=saved.run_id)
    try:
        skill, said = await harvest_saved(saved, settings, engine)
    except Exception as exc:  # the run is kept: it can be harvested later
        logger.warning("console recording %s was not harvested: %s", live.key, exc)
        skill, said = None, f"Not harvested: {_one_line(exc)}"
    done = f"Recorded {len(recording.actions)} actions as {saved.command!r}. {said}"
    notes = password_notes(recording, saved)
    _end(live, "saved", " ".join([done, *notes]), [skill] if skill else [])


def _one_line(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}".strip().splitlines()[0]


def _end(live: LiveRun, status: str, answer: str, skills: list[str] | None = None) -> None:
    live.status = status
    live.publish("end", status=status, answer=answer, run_id=live.run_id, skills=skills or [])
