"""Harvested sources: each log the harvester read, and what came of it."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0002", "0001"


def upgrade() -> None:
    op.create_table(
        "harvestedsource",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("detail", sa.String(), nullable=True),
        sa.Column("skill_name", sa.String(), nullable=True),
        sa.Column("skill_version", sa.Integer(), nullable=True),
        sa.Column("harvested_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_harvestedsource_key", "harvestedsource", ["key"], unique=True)
    op.create_index("ix_harvestedsource_run_id", "harvestedsource", ["run_id"])


def downgrade() -> None:
    op.drop_table("harvestedsource")
