"""Skill health: the outcome of each run and validation of a skill version, with its kind."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0009", "0008"


def upgrade() -> None:
    op.create_table(
        "skilloutcome",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("skill_id", sa.Integer(), nullable=False),
        sa.Column("via", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["skill_id"], ["skill.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_skilloutcome_skill_id", "skilloutcome", ["skill_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_skilloutcome_skill_id", table_name="skilloutcome")
    op.drop_table("skilloutcome")
