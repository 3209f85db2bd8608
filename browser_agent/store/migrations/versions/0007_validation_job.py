"""Validation jobs: a distributed validation's replay is kept once under its job id."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0007", "0006"


def upgrade() -> None:
    op.add_column("validation", sa.Column("job_id", sa.String(), nullable=True))
    op.create_index("ix_validation_job_id", "validation", ["job_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_validation_job_id", table_name="validation")
    with op.batch_alter_table("validation") as batch:
        batch.drop_column("job_id")
