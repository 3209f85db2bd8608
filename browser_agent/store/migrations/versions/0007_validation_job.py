"""Validation jobs: a distributed validation's replay is kept once under its job id.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("validation", sa.Column("job_id", sa.String(), nullable=True))
    op.create_index("ix_validation_job_id", "validation", ["job_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_validation_job_id", table_name="validation")
    with op.batch_alter_table("validation") as batch:
        batch.drop_column("job_id")
