"""Watches and their checks through the driver: adding, finding, claiming the due ones (so
two runners never check one watch at once), and keeping each check."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from browser_agent.errors import UserError
from browser_agent.store.connection import Store
from browser_agent.store.rows import WatchCheckRow, WatchRow, columns

_WATCH = columns(WatchRow)
_CHECK = columns(WatchCheckRow)
ACTIVE, PAUSED, DONE = "active", "paused", "done"


class UnknownWatch(UserError):
    """No watch has that name or id."""


class WatchExists(UserError):
    """A watch of that name is there already."""


def _names(names: list[str]) -> str:
    return ", ".join(f'"{name}"' for name in names)


def add_watch(store: Store, watch: WatchRow) -> WatchRow:
    """Insert ``watch``; it, with its id. WatchExists when its name is taken."""
    if _by_name(store, watch.name) is not None:
        raise WatchExists(
            f"a watch named {watch.name!r} exists already: give another --name, or "
            f"browser-agent watch remove {watch.name}"
        )
    names = [name for name in _WATCH if name != "id"]
    values = ", ".join(f":{name}" for name in names)
    fields = {name: getattr(watch, name) for name in names}
    result = store.execute(
        f"INSERT INTO watch ({_names(names)}) VALUES ({values}) RETURNING id", **fields
    )
    watch.id = int(result.rows[0]["id"])
    return watch


def all_watches(store: Store) -> list[WatchRow]:
    """Every watch, oldest first."""
    rows = store.execute(f"SELECT {_names(_WATCH)} FROM watch ORDER BY id").rows
    return [WatchRow.read(row) for row in rows]


def find_watch(store: Store, name_or_id: str) -> WatchRow:
    """The watch with this name, or this id; UnknownWatch (one line) when there is none."""
    found = _by_name(store, name_or_id)
    if found is None and name_or_id.strip().isdigit():
        found = watch_by_id(store, int(name_or_id))
    if found is None:
        raise UnknownWatch(
            f"no watch {name_or_id!r}: browser-agent watch list shows their names and ids"
        )
    return found


def watch_by_id(store: Store, watch_id: int) -> WatchRow | None:
    rows = store.execute(f"SELECT {_names(_WATCH)} FROM watch WHERE id = :id", id=watch_id).rows
    return WatchRow.read(rows[0]) if rows else None


def _by_name(store: Store, name: str) -> WatchRow | None:
    rows = store.execute(f"SELECT {_names(_WATCH)} FROM watch WHERE name = :name", name=name).rows
    return WatchRow.read(rows[0]) if rows else None


def set_status(store: Store, watch: WatchRow, status: str, next_at: datetime | None = None) -> None:
    """Pause, resume (due at ``next_at``) or end a watch."""
    store.execute(
        "UPDATE watch SET status = :status, next_at = :next_at WHERE id = :id",
        id=watch.id,
        status=status,
        next_at=next_at or watch.next_at,
    )


def remove_watch(store: Store, watch: WatchRow) -> None:
    """Delete a watch and its checks (their runs stay)."""
    with store.transaction() as execute:
        execute("DELETE FROM watchcheck WHERE watch_id = :id", id=watch.id)
        execute("DELETE FROM watch WHERE id = :id", id=watch.id)


def due_watches(store: Store, now: datetime) -> list[WatchRow]:
    """The active watches due at ``now``, the longest waiting first."""
    rows = store.execute(
        f"SELECT {_names(_WATCH)} FROM watch WHERE status = :active AND next_at <= :now "
        "ORDER BY next_at, id",
        active=ACTIVE,
        now=now,
    ).rows
    return [WatchRow.read(row) for row in rows]


def claim(store: Store, watch: WatchRow, next_at: datetime) -> bool:
    """Move the watch's next check to ``next_at``, if no other runner did so first; True
    when this runner has it (and ``watch`` says the new time)."""
    result = store.execute(
        "UPDATE watch SET next_at = :next_at "
        "WHERE id = :id AND next_at = :was AND status = :active",
        id=watch.id,
        was=watch.next_at,
        next_at=next_at,
        active=ACTIVE,
    )
    if result.rowcount == 1:
        watch.next_at = next_at
    return result.rowcount == 1


def add_check(store: Store, check: WatchCheckRow, ended: bool) -> int:
    """Keep a check and count it on its watch (ended: the watch is done); the check's id."""
    names = [name for name in _CHECK if name != "id"]
    values = ", ".join(f":{name}" for name in names)
    fields = {name: value for name, value in asdict(check).items() if name != "id"}
    with store.transaction() as execute:
        result = execute(
            f"INSERT INTO watchcheck ({_names(names)}) VALUES ({values}) RETURNING id", **fields
        )
        execute(
            "UPDATE watch SET checks = checks + 1, last_at = :at, last_status = :status"
            + (", status = :done" if ended else "")
            + " WHERE id = :id",
            id=check.watch_id,
            at=check.at,
            status=check.status,
            **({"done": DONE} if ended else {}),
        )
    return int(result.rows[0]["id"])


def checks_of(store: Store, watch: WatchRow, limit: int = 20) -> list[WatchCheckRow]:
    """The watch's newest ``limit`` checks, newest first."""
    rows = store.execute(
        f"SELECT {_names(_CHECK)} FROM watchcheck WHERE watch_id = :id "
        "ORDER BY at DESC, id DESC LIMIT :limit",
        id=watch.id,
        limit=limit,
    ).rows
    return [WatchCheckRow.read(row) for row in rows]
