"""Batch jobs: each job's result of a batch or a distributed validation, once per job id."""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0005", "0004"


def upgrade() -> None:
    op.create_table(
        "batchjob",
        *required(sa.String(), "job_id", "batch_id", "kind", "command", "status", "detail"),
        *optional(sa.String(), "run_id", "worker"),
        *required(sa.Integer(), "llm_calls"),
        *required(sa.Float(), "seconds"),
        *required(TIME, "finished_at"),
        sa.PrimaryKeyConstraint("job_id"),
    )
    op.create_index("ix_batchjob_batch_id", "batchjob", ["batch_id"])


def downgrade() -> None:
    op.drop_table("batchjob")
