"""Opening the store: an engine for the configured URL, its tables migrated to this version."""

from __future__ import annotations

from sqlalchemy import Engine, event
from sqlmodel import create_engine

from browser_agent.settings import Settings


def open_store(settings: Settings) -> Engine:
    """Engine for the settings' database (SQLite file in the workspace by default), with
    its tables created or upgraded under the migration lock when they are not current."""
    from browser_agent.store.migrate import ensure_current

    engine = store_engine(settings)
    ensure_current(engine)
    return engine


def store_engine(settings: Settings) -> Engine:
    """Engine for the settings' database as it is: nothing created or migrated."""
    url = settings.db_url
    if url.startswith("sqlite:///"):
        settings.workspace.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def forget_old_versions(engine: Engine) -> None:
    """Fold the write-ahead log into the database so replaced rows leave no copy on disk."""
    if engine.url.get_backend_name() == "sqlite":
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def _sqlite_pragmas(connection, _record) -> None:  # type: ignore[no-untyped-def]
    """WAL lets the validator and a run write at once; a busy timeout avoids lock errors."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA secure_delete=ON")  # masked secrets leave no old copy behind
    cursor.close()
