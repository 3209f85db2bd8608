"""Watches: commands checked on a schedule, and the outcome of each check."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0012", "0011"


def upgrade() -> None:
    op.create_table(
        "watch",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("command", sa.String(), nullable=False),
        sa.Column("every_s", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("start_url", sa.String(), nullable=True),
        sa.Column("until", sa.String(), nullable=True),
        sa.Column("notify", sa.String(), nullable=True),
        sa.Column("keep_going", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("checks", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_status", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_watch_name", "watch", ["name"], unique=True)
    op.create_index("ix_watch_next_at", "watch", ["next_at"], unique=False)
    op.create_index("ix_watch_status", "watch", ["status"], unique=False)
    op.create_table(
        "watchcheck",
        sa.Column("watch_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("extracted", sa.String(), nullable=False),
        sa.Column("final_url", sa.String(), nullable=True),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("changed", sa.String(), nullable=True),
        sa.Column("held", sa.Boolean(), nullable=False),
        sa.Column("notified", sa.String(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
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
