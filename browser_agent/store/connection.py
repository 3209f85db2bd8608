"""The store through its database driver: the SQL a run reads and writes with.

A run's own rows (the run, its steps, its log's copy, the skills it uses) are a few short
statements, so the run path sends them through the DB-API connection itself instead of
SQLAlchemy's ORM, whose import costs more CPU than everything else a routed run does in
Python. :mod:`browser_agent.store.run_store` opens a store already at the head revision
with the driver alone (``sqlite3`` for a SQLite file, ``psycopg`` for PostgreSQL);
anything else (a new or older store, an unusual URL) is opened by
:func:`browser_agent.store.db.open_store` as every other command does, and wrapped.
Statements name their parameters ``:name``; the driver's own style is used.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from browser_agent.store.errors import damaged, damaged_store

if TYPE_CHECKING:
    from typing import TypeAlias

    from sqlalchemy import Engine


#: What the store's functions take: the run's own store, or a SQLAlchemy engine that
#: :meth:`Store.of` makes one (the commands that loaded the ORM pass their engine).
Db: TypeAlias = "Store | Engine"

#: Run one statement in the current transaction: its rows (as dicts) and its row count.
Execute = Callable[..., "Result"]


@dataclass
class Result:
    """What a statement gave back: its rows, each a dict by column name, and its row count."""

    rows: list[dict[str, Any]]
    rowcount: int


@dataclass(eq=False)
class Store:
    """A DB-API connection to the store. ``connect`` gives a connection: one kept open
    until :meth:`close` (``keep``: a direct SQLite connection, a run's own) or one from an
    engine's pool, given back after each transaction."""

    connect: Callable[[], Any]
    backend: str  # "sqlite" or "postgresql"
    keep: bool = False
    engine: Engine | None = None  # the SQLAlchemy engine it came from, if any
    name: str = ""  # the store's URL (no password), as a damaged file is said
    _kept: Any = field(default=None, repr=False)

    @classmethod
    def of(cls, db: Db) -> Store:
        """``db`` as a store: itself, or the connections of a SQLAlchemy engine."""
        if isinstance(db, Store):
            return db
        name = db.url.render_as_string(hide_password=True)
        return cls(db.raw_connection, db.url.get_backend_name(), engine=db, name=name)

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        """A transaction: ``execute(sql, **params)`` runs statements in it; committed at
        the end of the block, rolled back if it raises."""
        connection = self._connection()
        try:
            yield lambda sql, **params: self._run(connection, sql, params)
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        finally:
            if not self.keep:
                connection.close()  # back to the engine's pool

    def execute(self, sql: str, **params: Any) -> Result:
        """One statement in a transaction of its own."""
        with self.transaction() as execute:
            return execute(sql, **params)

    def forget_old_versions(self) -> None:
        """Fold a SQLite store's write-ahead log into the file, so replaced rows (masked
        secrets) leave no copy on disk. Nothing to do on a server database."""
        if self.backend == "sqlite":
            self.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        """Close the kept connection (a SQLite store folds its write-ahead log back)."""
        if self._kept is not None:
            self._kept.close()
            self._kept = None

    def _connection(self) -> Any:
        if not self.keep:
            return self.connect()
        if self._kept is None:
            self._kept = self.connect()
        return self._kept

    def _run(self, connection: Any, sql: str, params: dict[str, Any]) -> Result:
        if self.backend == "sqlite":
            params = {k: _sqlite_value(v) for k, v in params.items()}
        else:  # psycopg and psycopg2 take %(name)s
            sql = re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)
        cursor = connection.cursor()
        try:
            cursor.execute(sql, params)
            names = [column[0] for column in cursor.description or ()]
            rows = (
                [dict(zip(names, row, strict=True)) for row in cursor.fetchall()] if names else []
            )
            return Result(rows, cursor.rowcount)
        except sqlite3.DatabaseError as exc:  # a damaged file is the person's to mend
            if damaged(exc):
                raise damaged_store(self.name, exc) from None
            raise
        finally:
            cursor.close()


def _sqlite_value(value: Any) -> Any:
    """A value as the ORM writes it to SQLite: a time as the text of its UTC time."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return value


def sqlite_connection(path: Path) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` with the store's per-connection settings."""
    connection = sqlite3.connect(path, check_same_thread=False)
    use_store_pragmas(connection)
    return connection


def use_store_pragmas(connection: Any) -> None:
    """Per SQLite connection (``sqlite3``'s own or one SQLAlchemy opens): wait for a busy
    store rather than fail, keep foreign keys, overwrite what is deleted.

    WAL, which lets the validator and a run write at once, stays with the file; it is set
    once, under the migration lock (``migrate.upgrade``), since switching needs the whole file."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA secure_delete=ON")  # masked secrets leave no old copy behind
    cursor.close()
