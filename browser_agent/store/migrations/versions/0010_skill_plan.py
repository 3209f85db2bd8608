"""Skill plans: each skill version keeps the plan its module is made from, as data.

Skills stored before have no plan and are refused until harvested again (see
skills.stored): their code alone cannot be trusted to be what a plan makes.
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0010", "0009"


def upgrade() -> None:
    op.add_column("skill", sa.Column("plan", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("skill", "plan")  # SQLite drops a column in place (batch mode would copy
    # the table, which the foreign keys of validations and outcomes refuse)
