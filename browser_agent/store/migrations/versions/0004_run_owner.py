"""The process running each run (pid and host name), to tell a dead run from a live one.

A run left running by a process that no longer exists (killed, or the machine restarted)
is then marked abandoned when the store is next opened on its host.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN: SQLite does it in place (batch mode would copy the table, which its
    # foreign keys forbid)
    op.add_column("run", sa.Column("pid", sa.Integer(), nullable=True))
    op.add_column("run", sa.Column("host", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("run", "host")
    op.drop_column("run", "pid")
