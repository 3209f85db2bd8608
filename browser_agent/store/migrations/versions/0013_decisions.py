"""Decisions: each approval, rejection or correction of a proposed action, with its note
and the context it was made on (the feedback ``browser-agent feedback export`` writes).
"""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0013", "0012"


def upgrade() -> None:
    op.create_table(
        "decision",
        *required(sa.String(), "run_id", "verdict", "action", "tool", "arguments", "note"),
        *required(sa.Integer(), "step", "id"),
        *optional(sa.String(), "corrected_tool", "corrected_arguments"),
        *required(sa.Text(), "context", "tools", "followed_by"),
        *required(TIME, "decided_at"),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_decision_run_id", "decision", ["run_id"], unique=False)
    op.create_index("ix_decision_decided_at", "decision", ["decided_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_decision_decided_at", table_name="decision")
    op.drop_index("ix_decision_run_id", table_name="decision")
    op.drop_table("decision")
