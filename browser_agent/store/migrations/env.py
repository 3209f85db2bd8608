"""The alembic environment: runs the store's revisions on the connection it is given.

Migrations run in-process (see :mod:`browser_agent.store.migrate`), on the connection
in ``config.attributes["connection"]``, or on the URL in the ``sqlalchemy.url`` option.
"""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from sqlalchemy import Connection, create_engine
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

import browser_agent.store.memory_models  # noqa: F401  (registers the tables)
import browser_agent.store.models  # noqa: F401


def render_item(kind: str, item: Any, _autogen: Any) -> str | Literal[False]:
    """Drafted revisions name plain SQLAlchemy types, not sqlmodel's column types."""
    if kind == "type" and isinstance(item, AutoString):
        return "sa.String()"
    if kind == "type" and isinstance(item, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_on(connection: Connection) -> None:
    """Apply the command (upgrade, stamp, autogenerate) on ``connection``."""
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER much
        compare_type=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if given is not None:
    run_on(given)
else:
    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as connection:
        run_on(connection)
    engine.dispose()
