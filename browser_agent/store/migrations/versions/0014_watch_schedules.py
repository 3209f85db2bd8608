"""Watches on a clock (a cron expression), the page text of each check (what changed is
said as a diff of it), and watch ids never given again once a watch is removed.

On SQLite the watch table is made anew with AUTOINCREMENT (without it, SQLite gives the
highest id again after that watch is removed), its rows copied in with their ids.
PostgreSQL's sequences never give an id twice.
"""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0014", "0013"

_COLUMNS = (
    "name, command, every_s, next_at, id, start_url, until, notify, keep_going, status, "
    "checks, last_at, last_status, created_at"
)


def _watch_columns() -> list[sa.Column]:
    """The watch table's columns as revision 0012 made them."""
    return [
        *required(sa.String(), "name", "command", "status"),
        *required(sa.Integer(), "every_s", "id", "checks"),
        *required(TIME, "next_at", "created_at"),
        *optional(sa.String(), "start_url", "until", "notify", "last_status"),
        *required(sa.Boolean(), "keep_going"),
        *optional(TIME, "last_at"),
    ]


def _watch_table_anew(autoincrement: bool, schedule: bool) -> None:
    """SQLite: the watch table made again (with or without AUTOINCREMENT and the schedule
    column), its rows copied back with their ids. The checks' references to it are checked
    at commit, once the rows are back: a no-op write opens the transaction the pragma
    needs."""
    op.execute("UPDATE watch SET id = id WHERE 0 = 1")
    op.execute("PRAGMA defer_foreign_keys = ON")
    op.execute(f"CREATE TABLE _watch_rows AS SELECT {_COLUMNS} FROM watch")
    for index in ("ix_watch_name", "ix_watch_next_at", "ix_watch_status"):
        op.drop_index(index, table_name="watch")
    op.drop_table("watch")
    extra = [sa.Column("schedule", sa.String(), nullable=True)] if schedule else []
    op.create_table(
        "watch",
        *_watch_columns(),
        *extra,
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=autoincrement,
    )
    op.execute(f"INSERT INTO watch ({_COLUMNS}) SELECT {_COLUMNS} FROM _watch_rows")
    op.drop_table("_watch_rows")
    op.create_index("ix_watch_name", "watch", ["name"], unique=True)
    op.create_index("ix_watch_next_at", "watch", ["next_at"], unique=False)
    op.create_index("ix_watch_status", "watch", ["status"], unique=False)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _watch_table_anew(autoincrement=True, schedule=True)
    else:
        op.add_column("watch", sa.Column("schedule", sa.String(), nullable=True))
    with op.batch_alter_table("watchcheck") as batch_op:
        batch_op.add_column(sa.Column("page", sa.Text(), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("watchcheck") as batch_op:
        batch_op.drop_column("page")
    if op.get_bind().dialect.name == "sqlite":
        _watch_table_anew(autoincrement=False, schedule=False)
    else:
        op.drop_column("watch", "schedule")
