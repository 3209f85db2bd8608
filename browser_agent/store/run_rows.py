"""A run's rows through the driver: the run itself, written again as it goes, one row per
step, and the recent runs read back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

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
    filtered, params = _filter(status, text)
    sql = f"SELECT {names} FROM run{filtered} ORDER BY started_at DESC LIMIT :limit"
    return [RunRow.read(row) for row in store.execute(sql, limit=limit, **params).rows]


@dataclass
class ModelTotals:
    """What the runs of one model made and spent, added up."""

    model: str
    runs: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


def run_totals(
    store: Store, status: str | None = None, text: str | None = None
) -> list[ModelTotals]:
    """The runs (only those ``recent_runs`` would list with ``status`` and ``text``) added
    up by model: each model's price applies to its own tokens."""
    filtered, params = _filter(status, text)
    sql = (
        "SELECT model, COUNT(*) AS runs, SUM(llm_calls) AS llm_calls, "
        "SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens "
        f"FROM run{filtered} GROUP BY model ORDER BY model"
    )
    return [
        ModelTotals(**{key: row[key] if key == "model" else int(row[key] or 0) for key in row})
        for row in store.execute(sql, **params).rows
    ]


def _filter(status: str | None, text: str | None) -> tuple[str, dict[str, str]]:
    """The WHERE clause (and its parameters) for runs with ``status`` whose command holds
    ``text`` in any case (``%`` and ``_`` as themselves); empty for neither."""
    where, params = [], {}
    if status:
        where.append("status = :status")
        params["status"] = status
    if text:
        where.append("LOWER(command) LIKE :pattern ESCAPE '\\'")
        escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["pattern"] = f"%{escaped}%"
    return (f" WHERE {' AND '.join(where)}" if where else ""), params


def run_row(store: Store, run_id: str) -> RunRow | None:
    """The run with this id, as stored."""
    names = ", ".join(f'"{name}"' for name in _RUN_COLUMNS)
    rows = store.execute(f"SELECT {names} FROM run WHERE id = :id", id=run_id).rows
    return RunRow.read(rows[0]) if rows else None


def succeeded_runs(store: Store) -> list[RunRow]:
    """Every run that succeeded, in the order they started (what ``harvest --all`` reads)."""
    names = ", ".join(f'"{name}"' for name in _RUN_COLUMNS)
    sql = f"SELECT {names} FROM run WHERE status = 'succeeded' ORDER BY started_at, id"
    return [RunRow.read(row) for row in store.execute(sql).rows]
