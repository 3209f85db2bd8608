"""Watches: commands checked on a schedule, and the outcome of each check."""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0012", "0011"


def upgrade() -> None:
    op.create_table(
        "watch",
        *required(sa.String(), "name", "command", "status"),
        *required(sa.Integer(), "every_s", "id", "checks"),
        *required(TIME, "next_at", "created_at"),
        *optional(sa.String(), "start_url", "until", "notify", "last_status"),
        *required(sa.Boolean(), "keep_going"),
        *optional(TIME, "last_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_watch_name", "watch", ["name"], unique=True)
    op.create_index("ix_watch_next_at", "watch", ["next_at"], unique=False)
    op.create_index("ix_watch_status", "watch", ["status"], unique=False)
    op.create_table(
        "watchcheck",
        *required(sa.Integer(), "watch_id", "id", "llm_calls"),
        *required(sa.String(), "status", "extracted"),
        *required(TIME, "at"),
        *optional(sa.String(), "run_id", "final_url", "changed", "notified", "error"),
        *required(sa.Text(), "answer"),
        *required(sa.Float(), "seconds"),
        *required(sa.Boolean(), "held"),
        sa.ForeignKeyConstraint(["watch_id"], ["watch.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_watchcheck_watch_id", "watchcheck", ["watch_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_watchcheck_watch_id", table_name="watchcheck")
    op.drop_table("watchcheck")
    op.drop_index("ix_watch_status", table_name="watch")
    op.drop_index("ix_watch_next_at", table_name="watch")
    op.drop_index("ix_watch_name", table_name="watch")
    op.drop_table("watch")
