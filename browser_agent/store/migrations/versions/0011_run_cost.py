"""Run costs: each run keeps what its tokens cost, priced once when it ended.

Runs stored before have no cost kept (null): they show the cost the configured prices
give, and none otherwise.
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0011", "0010"


def upgrade() -> None:
    op.add_column("run", sa.Column("cost_usd", sa.Float(), nullable=True))


def downgrade() -> None:
    op.drop_column("run", "cost_usd")
