"""A run's rows through the driver: the run itself, written again as it goes, one row per
step, and the recent runs read back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from browser_agent.store.connection import Execute, Store
from browser_agent.store.rows import RunRow, StepRow, columns

_RUN_COLUMNS = columns(RunRow)
_STEP_COLUMNS = [name for name in columns(StepRow) if name != "id"]


def save_run(execute: Execute, run: RunRow) -> None:
    """Write ``run``'s row: made the first time, every field replaced after."""
    names = ", ".join(f'"{name}"' for name in _RUN_COLUMNS)
    values = ", ".join(f":{name}" for name in _RUN_COLUMNS)
    changes = ", ".join(f'"{name}" = excluded."{name}"' for name in _RUN_COLUMNS[1:])
    execute(
        f'INSERT INTO run ({names}) VALUES ({values}) ON CONFLICT ("id") DO UPDATE SET {changes}',
        **asdict(run),
    )


def add_step(execute: Execute, step: StepRow) -> int:
    """Insert ``step``; its id."""
    names = ", ".join(f'"{name}"' for name in _STEP_COLUMNS)
    values = ", ".join(f":{name}" for name in _STEP_COLUMNS)
    fields = {name: getattr(step, name) for name in _STEP_COLUMNS}
    result = execute(f"INSERT INTO step ({names}) VALUES ({values}) RETURNING id", **fields)
    return int(result.rows[0]["id"])


def rewrite_steps(store: Store, run_id: str, change: Callable[[str], str]) -> None:
    """Pass the arguments and response of each step of the run through ``change`` (to mask
    a secret learnt late), in one transaction."""
    with store.transaction() as execute:
        steps = execute(
            "SELECT id, arguments, response FROM step WHERE run_id = :run_id", run_id=run_id
        ).rows
        for step in steps:
            execute(
                "UPDATE step SET arguments = :arguments, response = :response WHERE id = :id",
                id=step["id"],
                arguments=change(step["arguments"]),
                response=change(step["response"]),
            )


def recent_runs(
    store: Store, limit: int, status: str | None = None, text: str | None = None
) -> list[RunRow]:
    """The ``limit`` most recent runs, newest first; only those with ``status``, and whose
    command contains ``text`` (any case, ``%`` and ``_`` as themselves), when given."""
    names = ", ".join(f'"{name}"' for name in _RUN_COLUMNS)
    where, params = [], {"limit": limit}
    if status:
        where.append("status = :status")
        params["status"] = status
    if text:
        where.append("LOWER(command) LIKE :pattern ESCAPE '\\'")
        escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["pattern"] = f"%{escaped}%"
    filtered = f" WHERE {' AND '.join(where)}" if where else ""
    sql = f"SELECT {names} FROM run{filtered} ORDER BY started_at DESC LIMIT :limit"
    return [RunRow.read(row) for row in store.execute(sql, **params).rows]


def run_row(store: Store, run_id: str) -> RunRow | None:
    """The run with this id, as stored."""
    names = ", ".join(f'"{name}"' for name in _RUN_COLUMNS)
    rows = store.execute(f"SELECT {names} FROM run WHERE id = :id", id=run_id).rows
    return RunRow.read(rows[0]) if rows else None
