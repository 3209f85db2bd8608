"""Harvested sources: each log the harvester read, and what came of it."""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0002", "0001"


def upgrade() -> None:
    op.create_table(
        "harvestedsource",
        *required(sa.Integer(), "id"),
        *required(sa.String(), "key", "path", "outcome"),
        *optional(sa.String(), "run_id", "detail", "skill_name"),
        *optional(sa.Integer(), "skill_version"),
        *required(TIME, "harvested_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_harvestedsource_key", "harvestedsource", ["key"], unique=True)
    op.create_index("ix_harvestedsource_run_id", "harvestedsource", ["run_id"])


def downgrade() -> None:
    op.drop_table("harvestedsource")
