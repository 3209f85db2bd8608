"""A person's decisions on proposed actions, through the driver: written as a run goes
(with the run's other rows) and read back for the feedback dataset."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from typing import Any

from browser_agent.store.connection import Execute, Store
from browser_agent.store.rows import DecisionRow, columns

_COLUMNS = columns(DecisionRow)
_WRITTEN = [name for name in _COLUMNS if name != "id"]
#: The columns that hold text from the page, the model or the person (masked late too).
_TEXTS = ("action", "arguments", "corrected_arguments", "note", "context", "followed_by")


def add_decision(execute: Execute, decision: DecisionRow) -> int:
    """Insert ``decision``; its id."""
    names = ", ".join(f'"{name}"' for name in _WRITTEN)
    values = ", ".join(f":{name}" for name in _WRITTEN)
    fields = {name: value for name, value in asdict(decision).items() if name != "id"}
    result = execute(f"INSERT INTO decision ({names}) VALUES ({values}) RETURNING id", **fields)
    return int(result.rows[0]["id"])


def follow_decision(store: Store, decision_id: int, reply: str) -> None:
    """Keep the model's next reply (JSON) after the rejection ``decision_id``."""
    store.execute(
        "UPDATE decision SET followed_by = :reply WHERE id = :id", id=decision_id, reply=reply
    )


def rewrite_decisions(store: Store, run_id: str, change: Callable[[str], str]) -> None:
    """Pass every text of the run's decisions through ``change`` (to mask a secret learnt
    late), in one transaction."""
    texts = ", ".join(f'"{name}"' for name in _TEXTS)
    sets = ", ".join(f'"{name}" = :{name}' for name in _TEXTS)
    with store.transaction() as execute:
        rows = execute(f"SELECT id, {texts} FROM decision WHERE run_id = :run_id", run_id=run_id)
        for row in rows.rows:
            changed = {name: change(row[name]) if row[name] else row[name] for name in _TEXTS}
            execute(f"UPDATE decision SET {sets} WHERE id = :id", id=row["id"], **changed)


def decisions(
    store: Store, since: datetime | None = None, run_id: str | None = None
) -> list[DecisionRow]:
    """Every decision, oldest first; only those made at ``since`` or later, and of the
    run ``run_id``, when given."""
    names = ", ".join(f'"{name}"' for name in _COLUMNS)
    where: list[str] = []
    params: dict[str, Any] = {}
    if since is not None:
        where.append("decided_at >= :since")
        params["since"] = since
    if run_id is not None:
        where.append("run_id = :run_id")
        params["run_id"] = run_id
    filtered = f" WHERE {' AND '.join(where)}" if where else ""
    sql = f"SELECT {names} FROM decision{filtered} ORDER BY decided_at, id"
    return [DecisionRow.read(row) for row in store.execute(sql, **params).rows]
