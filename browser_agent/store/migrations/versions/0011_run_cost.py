"""Run costs: each run keeps what its tokens cost, priced once when it ended.

Runs stored before have no cost kept (null): they show the cost the configured prices
give, and none otherwise.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("run", sa.Column("cost_usd", sa.Float(), nullable=True))


def downgrade() -> None:
    op.drop_column("run", "cost_usd")
