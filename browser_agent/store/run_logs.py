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
from typing import TYPE_CHECKING

from browser_agent.store.connection import Store
from browser_agent.store.paths import from_store

if TYPE_CHECKING:
    from browser_agent.store.connection import Db
    from browser_agent.store.models import Run
    from browser_agent.store.rows import RunRow


def keep_log(db: Db, run_id: str, log: str, meta: str) -> None:
    """Write (or replace) the store's copy of a run's chat log and metadata."""
    written = {"log": log, "meta": meta}
    _kept(db, run_id, "log = :log, meta = :meta", written, written)


def add_to_log(db: Db, run_id: str, items: str, log: str, meta: str) -> None:
    """Add messages to the store's copy of a chat log without sending back those before
    it: ``items`` are the JSON text of the new messages as the log's file writes them (each
    line indented), put before the closing bracket; none, and only ``meta`` is written.
    ``log`` is the whole text, for a copy not kept yet."""
    new = {"log": log, "meta": meta}
    if not items:
        _kept(db, run_id, "meta = :meta", {"meta": meta}, new)
        return
    change = "meta = :meta, log = substr(log, 1, length(log) - 2) || :added"
    _kept(db, run_id, change, {"meta": meta, "added": f",\n{items}\n]"}, new)


def keep_iteration(db: Db, run_id: str, line: str) -> None:
    """Add one iteration record (a JSON line) to the store's copy, without sending back
    those before it: a run's records grow with every model call."""
    added = {"iterations": line}
    _kept(db, run_id, "iterations = iterations || :iterations", added, added)


def keep_iterations(db: Db, run_id: str, text: str) -> None:
    """Replace the store's copy of a run's iteration records (masked after the fact)."""
    written = {"iterations": text}
    _kept(db, run_id, "iterations = :iterations", written, written)


def _kept(db: Db, run_id: str, change: str, values: dict[str, str], new: dict[str, str]) -> None:
    """Apply ``change`` (``SET`` assignments of ``values``) to the run's row in one
    transaction, or make the row with ``new`` (a chat log not written yet is an empty one)."""
    with Store.of(db).transaction() as execute:
        update = f"UPDATE runlog SET {change} WHERE run_id = :run_id"
        if execute(update, run_id=run_id, **values).rowcount == 0:
            made = {"log": "[]", "meta": "{}", "iterations": "", **new}
            execute(
                "INSERT INTO runlog (run_id, log, meta, iterations) "
                "VALUES (:run_id, :log, :meta, :iterations)",
                run_id=run_id,
                **made,
            )


def log_file(db: Db, run: Run | RunRow, workspace: Path) -> Path:
    """The run's chat log in this workspace: the file it was written to when it is here,
    else the store's copy written to where this workspace keeps the run's log (with its
    metadata beside it). Without either (or unable to write here), the path where it would
    be, not existing."""
    path = from_store(run.log_path, workspace)
    if path.exists():
        return path
    sql = "SELECT log, meta, iterations FROM runlog WHERE run_id = :run_id"
    kept = Store.of(db).execute(sql, run_id=run.id).rows
    if not kept or not re.fullmatch(r"[A-Za-z0-9_-]+", run.id):
        return path  # an id that is no plain name is not made into a file name
    local = workspace / "logs" / f"{run.id}.json"  # never a path the store names
    try:
        local.parent.mkdir(parents=True, exist_ok=True)
        local.with_suffix(".meta.json").write_text(kept[0]["meta"], encoding="utf-8")
        local.with_suffix(".iterations.jsonl").write_text(kept[0]["iterations"], encoding="utf-8")
        local.write_text(kept[0]["log"], encoding="utf-8")
    except OSError:  # a workspace it cannot write to: the log stays unread, as without it
        return path
    return local
