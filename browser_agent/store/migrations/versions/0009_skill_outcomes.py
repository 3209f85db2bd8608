"""Skill health: the outcome of each run and validation of a skill version, with its kind."""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0009", "0008"


def upgrade() -> None:
    op.create_table(
        "skilloutcome",
        *required(sa.Integer(), "id", "skill_id"),
        *required(sa.String(), "via", "kind"),
        *optional(sa.Integer(), "step"),
        *optional(sa.String(), "error"),
        *required(TIME, "at"),
        sa.ForeignKeyConstraint(["skill_id"], ["skill.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_skilloutcome_skill_id", "skilloutcome", ["skill_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_skilloutcome_skill_id", table_name="skilloutcome")
    op.drop_table("skilloutcome")
