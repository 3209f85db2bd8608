"""Run logs: a run's iteration records (each model call) kept in the store with its log."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0008", "0007"


def upgrade() -> None:
    op.add_column("runlog", sa.Column("iterations", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("runlog") as batch:
        batch.drop_column("iterations")
