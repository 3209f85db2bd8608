"""Whether a skill may do a whole command is a field of its own, set when its health is
written (see store.routability); skills stored before get it once, read from their status,
completeness, plan and last error as routing read them until now.
"""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.routability import routable_after

revision, down_revision = "0015", "0014"


def upgrade() -> None:
    op.add_column(
        "skill", sa.Column("routable", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, status, complete, plan, last_error FROM skill"))
    yes = [
        row.id
        for row in rows
        if routable_after(row.status, bool(row.complete), row.plan or "", row.last_error)
    ]
    for skill_id in yes:
        bind.execute(
            sa.text("UPDATE skill SET routable = :yes WHERE id = :id"),
            {"yes": True, "id": skill_id},
        )


def downgrade() -> None:
    op.drop_column("skill", "routable")  # SQLite drops a column in place (see 0010)
