"""Opening the store: an engine for the configured URL, its tables migrated to this version.

SQLite (a file in the workspace) is the default. A ``postgresql://`` or ``postgres://``
URL opens a PostgreSQL database through psycopg (the ``postgres`` extra). A store that
cannot be opened (no driver, no server, a refused login, no such database, not a database
URL) raises :class:`StoreError` with one line saying why; passwords never appear in it.
"""

from __future__ import annotations

import weakref
from pathlib import Path

from sqlalchemy import URL, Engine, event
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlmodel import create_engine

from browser_agent.settings import Settings, mask_url
from browser_agent.store.connection import Store, use_store_pragmas
from browser_agent.store.errors import StoreError, damaged, damaged_store
from browser_agent.store.refusals import connection_refusal, first_line

#: The driver a PostgreSQL URL without one is opened with.
POSTGRES_DRIVER = "psycopg"
#: How to install a driver that is missing, by its module name.
DRIVER_INSTALL = {
    "psycopg": "pip install 'browser-agent[postgres]'",
    "psycopg2": "pip install psycopg2-binary, or write the URL as postgresql:// and "
    "pip install 'browser-agent[postgres]'",
}
EXPECTED_URL = "sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"

_engines: weakref.WeakSet[Engine] = weakref.WeakSet()  # every engine made in this process


def open_store(settings: Settings) -> Engine:
    """Engine for the settings' database (SQLite file in the workspace by default), with
    its tables created or upgraded under the migration lock when they are not current.

    Runs of this host left ``running`` by a process that no longer exists are marked
    abandoned. Raises StoreError when the store cannot be opened or read."""
    from browser_agent.store.abandoned import mark_abandoned
    from browser_agent.store.migrate import ensure_current

    engine = store_engine(settings)
    try:
        ensure_current(engine)
        mark_abandoned(Store.of(engine))
    except DBAPIError as exc:  # a file that is no SQLite database, a table it cannot read
        said = first_line(str(exc.orig))
        raise StoreError(f"cannot open the store {mask_url(settings.db_url)}: {said}") from None
    return engine


def orm_engine(store: Store, settings: Settings) -> Engine:
    """A SQLAlchemy engine on ``store``, for the ORM's queries (the memory manager's): the
    one it came from, or one made on first use for a direct connection."""
    if store.engine is None:
        store.engine = store_engine(settings)
    return store.engine


def store_engine(settings: Settings) -> Engine:
    """Engine for the settings' database as it is: nothing created or migrated. A server
    database is connected to once, so that a store out of reach is said here.

    Raises StoreError when the URL, the driver or the connection is not usable."""
    url = _parsed(settings.db_url)
    if url.get_backend_name() == "sqlite":
        settings.workspace.mkdir(parents=True, exist_ok=True)
        _check_folder(url, settings.db_url)
    engine = _created(url, settings.db_url)
    if url.get_backend_name() == "sqlite":
        event.listen(engine, "connect", lambda connection, _record: use_store_pragmas(connection))
        name = url.render_as_string(hide_password=True)
        event.listen(engine, "handle_error", lambda context: _damaged(name, context))
    else:
        _check_connection(engine, settings.db_url)
    return engine


def _damaged(name: str, context: ExceptionContext) -> StoreError | None:
    """A SQLite file found damaged by any statement (the ORM's too) is said as the store's
    problem in one line; None leaves every other error as it is."""
    if damaged(context.original_exception):
        return damaged_store(name, context.original_exception)
    return None


def engine_url(url: str) -> str:
    """``url`` as SQLAlchemy opens it: ``postgres://`` and ``postgresql://`` (no driver
    named) are driven by psycopg; every other URL is kept as it is."""
    scheme, separator, rest = url.strip().partition("://")
    if separator and scheme.lower() in ("postgres", "postgresql"):
        return f"postgresql+{POSTGRES_DRIVER}://{rest}"
    return url.strip()


def _parsed(configured: str) -> URL:
    """The SQLAlchemy URL of the configured store URL; StoreError if it is not one, or
    names a database other than SQLite or PostgreSQL (a run's statements are written for
    those two: see store.connection)."""
    try:
        url = make_url(engine_url(configured))
        kind = url.get_dialect().name  # the dialect's module only, not its driver
    except (ArgumentError, NoSuchModuleError):  # http://, file://, a typo
        raise StoreError(_not_a_database_url(configured)) from None
    if kind not in ("sqlite", "postgresql"):
        raise StoreError(
            f"the store URL {mask_url(configured)!r} names a {kind} database; the store is "
            f"a SQLite file or a PostgreSQL database (BROWSER_AGENT_DATABASE_URL takes "
            f"{EXPECTED_URL})"
        )
    return url


def _created(url: URL, configured: str) -> Engine:
    """``create_engine`` for ``url``, which loads its dialect and driver."""
    try:
        engine = create_engine(url)
    except ImportError as exc:  # the dialect is known, its driver is not installed
        raise StoreError(_missing_driver(url, configured, exc)) from None
    _engines.add(engine)
    return engine


def close_engines() -> None:
    """Close the pooled connections of every engine still open in this process (a SQLite
    store folds its write-ahead log back into the file), for a process about to end."""
    for engine in list(_engines):
        engine.dispose()


def _not_a_database_url(configured: str) -> str:
    return (
        f"the store URL {mask_url(configured)!r} is not a database URL "
        f"(BROWSER_AGENT_DATABASE_URL takes {EXPECTED_URL})"
    )


def _missing_driver(url: URL, configured: str, exc: ImportError) -> str:
    """What to install for the store's driver."""
    module = (exc.name or url.get_driver_name()).split(".")[0]
    install = DRIVER_INSTALL.get(module, f"install the Python package that provides {module}")
    kind = "PostgreSQL" if url.get_backend_name() == "postgresql" else url.get_backend_name()
    return (
        f"the {kind} driver {module} is not installed, so the store {mask_url(configured)} "
        f"cannot be opened: {install}"
    )


def _check_folder(url: URL, configured: str) -> None:
    """A SQLite file can be made only in a folder that exists."""
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return
    folder = Path(database).expanduser().absolute().parent
    if not folder.is_dir():
        raise StoreError(
            f"cannot open the store {mask_url(configured)}: the folder {folder} does not exist"
        )


def _check_connection(engine: Engine, configured: str) -> None:
    """Connect once (the connection goes back to the pool for the next use). The driver's
    messages name the server, the user and the database, never the password."""
    try:
        with engine.connect():
            pass
    except DBAPIError as exc:
        reason = connection_refusal(engine.url.host, engine.url.port, str(exc.orig))
        raise StoreError(f"cannot open the store {mask_url(configured)}: {reason}") from None
