"""The process running each run (pid and host name), to tell a dead run from a live one.

A run left running by a process that no longer exists (killed, or the machine restarted)
is then marked abandoned when the store is next opened on its host.
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0004", "0003"


def upgrade() -> None:
    # plain ADD COLUMN: SQLite does it in place (batch mode would copy the table, which its
    # foreign keys forbid)
    op.add_column("run", sa.Column("pid", sa.Integer(), nullable=True))
    op.add_column("run", sa.Column("host", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("run", "host")
    op.drop_column("run", "pid")
