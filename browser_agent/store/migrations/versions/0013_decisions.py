"""Decisions: each approval, rejection or correction of a proposed action, with its note
and the context it was made on (the feedback ``browser-agent feedback export`` writes).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0013", "0012"


def upgrade() -> None:
    op.create_table(
        "decision",
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("tool", sa.String(), nullable=False),
        sa.Column("arguments", sa.String(), nullable=False),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("corrected_tool", sa.String(), nullable=True),
        sa.Column("corrected_arguments", sa.String(), nullable=True),
        sa.Column("note", sa.String(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("tools", sa.Text(), nullable=False),
        sa.Column("followed_by", sa.Text(), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_decision_run_id", "decision", ["run_id"], unique=False)
    op.create_index("ix_decision_decided_at", "decision", ["decided_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_decision_decided_at", table_name="decision")
    op.drop_index("ix_decision_run_id", table_name="decision")
    op.drop_table("decision")
