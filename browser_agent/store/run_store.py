"""Opening the store a run writes to: a SQLite file or a PostgreSQL database at the head
revision with its driver alone, anything else through :func:`browser_agent.store.db.open_store`."""

from __future__ import annotations

import sqlite3
import weakref
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from browser_agent.store.abandoned import mark_abandoned
from browser_agent.store.connection import Store, sqlite_connection
from browser_agent.store.migrations import HEAD_REVISION

if TYPE_CHECKING:
    from browser_agent.settings import Settings

_stores: weakref.WeakSet[Store] = weakref.WeakSet()  # every direct connection of this process


def open_run_store(settings: Settings) -> Store:
    """The store a run writes to. A SQLite file or a PostgreSQL database at the head
    revision is opened with its driver alone (its runs of dead processes marked abandoned,
    as ``open_store`` does); any other store goes through ``open_store``, which creates and
    migrates. Raises StoreError, in one line, when the store cannot be opened."""
    path = _plain_sqlite_file(settings.db_url)
    server = _plain_postgres_url(settings.db_url)
    store = None
    if path is not None:
        direct = Store(
            lambda: sqlite_connection(path), "sqlite", keep=True, name=f"sqlite:///{path}"
        )
        store = _current_store(direct)
    elif server is not None:
        store = _current_postgres_store(server, settings.db_url)
    if store is None:
        from browser_agent.store.db import open_store

        return Store.of(open_store(settings))
    mark_abandoned(store)
    return store


def close_stores() -> None:
    """Close every direct connection still open in this process, for a process about to end."""
    for store in list(_stores):
        store.close()


def _plain_sqlite_file(url: str) -> Path | None:
    """The existing file a ``sqlite:///PATH`` URL names; None for any other URL (a server,
    options after ``?``, escapes, memory) or a file not made yet."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or any(c in url for c in "?%#"):
        return None
    path = Path(url[len(prefix) :])
    return path if path.name not in ("", ":memory:") and path.is_file() else None


def _plain_postgres_url(url: str) -> str | None:
    """A ``postgres://``, ``postgresql://`` or ``postgresql+psycopg://`` URL as libpq takes
    it (``postgresql://…``); None for any other URL."""
    scheme, separator, rest = url.strip().partition("://")
    if separator and scheme.lower() in ("postgres", "postgresql", "postgresql+psycopg"):
        return f"postgresql://{rest}"
    return None


def _current_postgres_store(server: str, configured: str) -> Store | None:
    """A kept psycopg connection to the database at ``server`` when its tables are at the
    head revision; None when they are not, or psycopg is missing (``open_store`` sees to
    both). A server that refuses the connection is said at once, without trying again."""
    try:
        import psycopg
    except ImportError:
        return None
    store = Store(lambda: psycopg.connect(server), "postgresql", keep=True)
    try:
        return _current_store(store, psycopg.errors.UndefinedTable)
    except psycopg.OperationalError as exc:  # no connection: the server's reason
        from browser_agent.settings import mask_url
        from browser_agent.store.errors import StoreError
        from browser_agent.store.refusals import connection_refusal

        reason = connection_refusal(*_host_and_port(server), str(exc))
        raise StoreError(f"cannot open the store {mask_url(configured)}: {reason}") from None


def _host_and_port(server: str) -> tuple[str | None, int | None]:
    """The host and port a server URL names (None for what it does not, or names badly)."""
    place = urlsplit(server)
    try:
        return place.hostname, place.port
    except ValueError:  # a port that is no number: libpq said so
        return place.hostname, None


def _current_store(store: Store, *no_table: type[Exception]) -> Store | None:
    """``store`` when its tables are at the head revision; None (and closed) when they
    are not, or it has none (``no_table``: the driver's errors that say so)."""
    try:
        rows = store.execute("SELECT version_num FROM alembic_version").rows
    except (sqlite3.Error, *no_table):
        rows = []
    if [row["version_num"] for row in rows] != [HEAD_REVISION]:
        store.close()
        return None
    _stores.add(store)
    return store
