"""Run logs: a run's chat log and metadata kept in the store, for runs made elsewhere."""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import required

revision, down_revision = "0006", "0005"


def upgrade() -> None:
    op.create_table(
        "runlog",
        *required(sa.String(), "run_id"),
        *required(sa.Text(), "log", "meta"),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("run_id"),
    )


def downgrade() -> None:
    op.drop_table("runlog")
