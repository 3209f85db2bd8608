"""Bringing a store's tables up to date with alembic, under the migration lock.

Opening the store calls :func:`ensure_current`: a store already at the head revision
costs one query (and alembic is not even imported); otherwise the first process to take
the lock migrates, and the others find the work done when they get it. A store made
before migrations existed (tables but no ``alembic_version``) is stamped with the
revision that made its tables, then upgraded: its rows are kept, never re-created.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from browser_agent.store.errors import StoreError
from browser_agent.store.lock import migration_lock, sqlite_file
from browser_agent.store.migrations import HEAD_REVISION

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

VERSION_TABLE = "alembic_version"

#: Stores made with ``create_all`` before migrations: the newest table each one had,
#: newest first, and the revision that makes exactly those tables.
_LEGACY_MARKERS = (("harvestedsource", "0002"), ("run", "0001"))


class StoreTooNew(StoreError):
    """The store was migrated by a newer version of browser-agent than this one."""


@dataclass(frozen=True)
class Revision:
    """One revision of the schema: its id and what it does."""

    id: str
    doc: str


@dataclass(frozen=True)
class SchemaStatus:
    """Where a store's schema stands: its revision, the newest one, those still to apply."""

    current: str | None
    head: str
    pending: list[Revision] = field(default_factory=list)
    legacy: str | None = None  # revision a store made before migrations will be stamped with

    @property
    def upgrade_needed(self) -> bool:
        return bool(self.pending)


@dataclass(frozen=True)
class Upgrade:
    """What an upgrade did: the revision it started from, the one it stamped a store made
    before migrations with (if any), and the revisions it applied, oldest first."""

    before: str | None
    stamped: str | None
    applied: list[Revision]
    head: str


def ensure_current(engine: Engine) -> Upgrade | None:
    """Migrate the store to the head revision unless it is there; None when it was."""
    if current_revision(engine) == HEAD_REVISION:
        return None
    return upgrade(engine)


def upgrade(engine: Engine) -> Upgrade:
    """Take the migration lock, stamp a store made before migrations, apply what is pending."""
    with migration_lock(engine):
        _use_wal(engine)
        return _upgraded(engine)


def _use_wal(engine: Engine) -> None:
    """Put a SQLite store file in WAL mode, so a run and the validator can write at once.

    The mode stays with the file; switching needs the file to itself, hence the lock."""
    if sqlite_file(engine) is not None:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA journal_mode=WAL")


def _upgraded(engine: Engine) -> Upgrade:
    """Stamp and upgrade; the caller holds the migration lock."""
    from alembic import command

    with engine.begin() as connection:
        config = alembic_config(connection)
        script = _script(config)
        before = _stored_revision(connection)
        stamped = None
        if before is None:
            stamped = legacy_revision(connection)
            if stamped is not None:
                command.stamp(config, stamped)
        start = before or stamped
        pending = _pending(script, start)
        if pending:
            command.upgrade(config, "head")
    return Upgrade(before, stamped, pending, _head(script))


def status(engine: Engine) -> SchemaStatus:
    """The store's revision and what an upgrade would do, without changing anything."""
    config = alembic_config()
    script = _script(config)
    database = sqlite_file(engine)
    if database is not None and not database.exists():
        return SchemaStatus(None, _head(script), _pending(script, None))
    with engine.connect() as connection:
        current = _stored_revision(connection)
        legacy = legacy_revision(connection) if current is None else None
    return SchemaStatus(current, _head(script), _pending(script, current or legacy), legacy)


def current_revision(engine: Engine) -> str | None:
    """The revision stored in the database; None before the first migration."""
    with engine.connect() as connection:
        return _stored_revision(connection)


def legacy_revision(connection: Connection) -> str | None:
    """The revision whose tables a store made before migrations has; None for an empty one."""
    tables = set(inspect(connection).get_table_names())
    return next((revision for table, revision in _LEGACY_MARKERS if table in tables), None)


def alembic_config(connection: Connection | None = None) -> Config:
    """An alembic configuration for the migrations shipped in this package, running on
    ``connection`` when one is given."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "browser_agent.store:migrations")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _stored_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    return connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()


def _script(config: Config) -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config)


def _head(script: ScriptDirectory) -> str:
    head = script.get_current_head()
    assert head is not None, "the package ships no migrations"
    return head


def _pending(script: ScriptDirectory, current: str | None) -> list[Revision]:
    """The revisions after ``current`` up to the head, oldest first."""
    from alembic.script.revision import RevisionError
    from alembic.util.exc import CommandError

    try:
        newer = list(script.iterate_revisions("head", current))
    except (CommandError, RevisionError) as exc:
        raise StoreTooNew(
            f"the store is at schema revision {current}, which this version of browser-agent "
            f"does not know (it knows up to {_head(script)}): it was written by a newer "
            "version; upgrade browser-agent to use it"
        ) from exc
    return [Revision(r.revision, (r.doc or "").strip().rstrip(".")) for r in reversed(newer)]
