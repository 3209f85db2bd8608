"""Run logs: a run's chat log and metadata kept in the store, for runs made elsewhere.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runlog",
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("log", sa.Text(), nullable=False),
        sa.Column("meta", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("run_id"),
    )


def downgrade() -> None:
    op.drop_table("runlog")
