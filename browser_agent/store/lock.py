"""The migration lock: one process at a time creates or changes the store's tables.

SQLite: a file lock beside the database file (``browser_agent.db.lock``), which every
process on the machine sees. PostgreSQL: a session-level advisory lock, which every
client of the database sees, wherever it runs. An in-memory SQLite database belongs to
one process and needs none.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from browser_agent.store.errors import StoreError

#: The advisory lock's key on PostgreSQL: any fixed 64-bit number that other
#: applications sharing the database are unlikely to use (the first eight bytes of
#: sha256("browser_agent.store.migrations"), read as a signed integer).
ADVISORY_LOCK_KEY = 0x6F3F_4C9A_17EF_7FD0

#: How long a process waits for another one's migration before giving up.
WAIT_S = 300.0


class LockTimeout(StoreError):
    """Another process held the migration lock for too long."""


def sqlite_file(engine: Engine) -> Path | None:
    """The database file of a SQLite engine; None for in-memory databases and other backends."""
    if engine.url.get_backend_name() != "sqlite":
        return None
    database = engine.url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database).resolve()


def lock_path(database: Path) -> Path:
    """The lock file beside a SQLite database file."""
    return database.with_name(database.name + ".lock")


@contextmanager
def migration_lock(engine: Engine, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold the store's migration lock for the block (waiting up to ``wait_s`` for it)."""
    if engine.url.get_backend_name() == "postgresql":
        with _advisory_lock(engine, wait_s):
            yield
        return
    database = sqlite_file(engine)
    if database is None:  # in memory: one process; other backends: no portable lock
        yield
        return
    from filelock import FileLock, Timeout  # only when a migration is due: 25 ms to import

    lock = FileLock(str(lock_path(database)), timeout=wait_s)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockTimeout(_held_too_long(wait_s, f"lock file {lock.lock_file}")) from exc
    try:
        yield
    finally:
        lock.release()


@contextmanager
def _advisory_lock(engine: Engine, wait_s: float) -> Iterator[None]:
    """PostgreSQL's advisory lock, held by one connection for the block."""
    key = {"key": ADVISORY_LOCK_KEY}
    with engine.connect() as connection:
        connection.execute(text(f"SET lock_timeout = {int(wait_s * 1000)}"))  # milliseconds
        try:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), key)
        except OperationalError as exc:  # lock_timeout ran out
            raise LockTimeout(_held_too_long(wait_s, "advisory lock")) from exc
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), key)
            connection.execute(text("RESET lock_timeout"))  # the connection goes back to the pool
            connection.commit()


def _held_too_long(wait_s: float, lock: str) -> str:
    return f"another process has been creating or upgrading the store for {wait_s:.0f} s ({lock})"
