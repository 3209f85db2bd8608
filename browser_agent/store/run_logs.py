"""Chat logs kept in the store, for runs whose log file is on another machine.

A run keeps its chat log and iteration records in ``logs/`` of the workspace it ran in;
with ``BROWSER_AGENT_LOGS_IN_STORE`` it keeps a copy in the store too. Commands that read a
run's log (``show``, ``harvest``, re-harvesting, the console) find it through
:func:`log_file`, which writes the store's copy into this workspace when the file is not
here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert, update
from sqlmodel import Session, col

from browser_agent.store.models import Run, RunLog
from browser_agent.store.paths import from_store


def keep_log(engine: Engine, run_id: str, log: str, meta: str) -> None:
    """Write (or replace) the store's copy of a run's chat log and metadata."""
    written = {"log": log, "meta": meta}
    _kept(engine, run_id, written, written)


def add_to_log(engine: Engine, run_id: str, items: str, log: str, meta: str) -> None:
    """Add messages to the store's copy of a chat log without sending back those before
    it: ``items`` are the JSON text of the new messages as the log's file writes them (each
    line indented), put before the closing bracket; none, and only ``meta`` is written.
    ``log`` is the whole text, for a copy not kept yet."""
    change: dict[str, Any] = {"meta": meta}
    if items:
        kept = col(RunLog.log)
        change["log"] = func.substr(kept, 1, func.length(kept) - 2) + f",\n{items}\n]"
    _kept(engine, run_id, change, {"log": log, "meta": meta})


def keep_iteration(engine: Engine, run_id: str, line: str) -> None:
    """Add one iteration record (a JSON line) to the store's copy, without sending back
    those before it: a run's records grow with every model call."""
    _kept(engine, run_id, {"iterations": col(RunLog.iterations) + line}, {"iterations": line})


def keep_iterations(engine: Engine, run_id: str, text: str) -> None:
    """Replace the store's copy of a run's iteration records (masked after the fact)."""
    _kept(engine, run_id, {"iterations": text}, {"iterations": text})


def _kept(engine: Engine, run_id: str, change: dict[str, Any], new: dict[str, Any]) -> None:
    """Apply ``change`` to the run's row in one transaction, or make the row with ``new``
    (a chat log not written yet is an empty one)."""
    with engine.begin() as connection:
        row = update(RunLog).where(col(RunLog.run_id) == run_id).values(**change)
        if connection.execute(row).rowcount == 0:
            made = {"log": "[]", "meta": "{}", "iterations": "", **new}
            connection.execute(insert(RunLog).values(run_id=run_id, **made))


def log_file(engine: Engine, run: Run, workspace: Path) -> Path:
    """The run's chat log in this workspace: the file it was written to when it is here,
    else the store's copy written to where this workspace keeps the run's log (with its
    metadata beside it). Without either (or unable to write here), the path where it would
    be, not existing."""
    path = from_store(run.log_path, workspace)
    if path.exists():
        return path
    with Session(engine) as db:
        kept = db.get(RunLog, run.id)
    if kept is None or not re.fullmatch(r"[A-Za-z0-9_-]+", run.id):
        return path  # an id that is no plain name is not made into a file name
    local = workspace / "logs" / f"{run.id}.json"  # never a path the store names
    try:
        local.parent.mkdir(parents=True, exist_ok=True)
        local.with_suffix(".meta.json").write_text(kept.meta, encoding="utf-8")
        local.with_suffix(".iterations.jsonl").write_text(kept.iterations, encoding="utf-8")
        local.write_text(kept.log, encoding="utf-8")
    except OSError:  # a workspace it cannot write to: the log stays unread, as without it
        return path
    return local
