"""Batch jobs: each job's result of a batch or a distributed validation, once per job id."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0005", "0004"


def upgrade() -> None:
    op.create_table(
        "batchjob",
        sa.Column("job_id", sa.String(), nullable=False),
        sa.Column("batch_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("command", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("detail", sa.String(), nullable=False),
        sa.Column("worker", sa.String(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("job_id"),
    )
    op.create_index("ix_batchjob_batch_id", "batchjob", ["batch_id"])


def downgrade() -> None:
    op.drop_table("batchjob")
