"""Run logs: a run's chat log and metadata kept in the store, for runs made elsewhere."""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0006", "0005"


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
