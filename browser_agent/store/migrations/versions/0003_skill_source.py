"""A skill's source kept in the store (with its hash); paths relative to the workspace.

With its source in the store, a skill loads in a moved or copied workspace and on a
worker with no shared folder. The module files that exist are read into the new
columns; on SQLite, paths inside the database's folder (the workspace) become relative.
"""

import hashlib
from pathlib import Path

import sqlalchemy as sa
from alembic import op

from browser_agent.store.paths import from_store, to_store

revision, down_revision = "0003", "0002"


def upgrade() -> None:
    # plain ADD COLUMN: SQLite does it in place (batch mode would copy the table, which its
    # foreign keys forbid)
    op.add_column("skill", sa.Column("source", sa.Text(), nullable=False, server_default=""))
    op.add_column("skill", sa.Column("source_hash", sa.String(), nullable=False, server_default=""))
    bind = op.get_bind()
    workspace = _workspace(bind)
    skills = bind.execute(sa.text("SELECT id, module_path FROM skill")).fetchall()
    for skill_id, module_path in skills:
        changes = _skill_changes(module_path or "", workspace)
        if changes:
            sets = ", ".join(f"{name} = :{name}" for name in changes)
            bind.execute(
                sa.text(f"UPDATE skill SET {sets} WHERE id = :id"), {**changes, "id": skill_id}
            )
    if workspace is None:
        return
    for row_id, value in bind.execute(sa.text("SELECT id, log_path FROM run")).fetchall():
        if not value or not Path(value).is_absolute():
            continue
        relative = to_store(from_store(value, workspace), workspace)
        if not Path(relative).is_absolute():
            bind.execute(
                sa.text("UPDATE run SET log_path = :value WHERE id = :id"),
                {"value": relative, "id": row_id},
            )


def downgrade() -> None:
    op.drop_column("skill", "source_hash")
    op.drop_column("skill", "source")


def _workspace(bind: sa.engine.Connection) -> Path | None:
    """The folder of a SQLite store's file: the workspace it was made in (None otherwise)."""
    if bind.dialect.name != "sqlite" or not bind.engine.url.database:
        return None
    return Path(bind.engine.url.database).resolve().parent


def _skill_changes(module_path: str, workspace: Path | None) -> dict[str, str]:
    """The source read from the skill's module (when the file is there) and its path as
    the store now keeps it."""
    changes: dict[str, str] = {}
    if not module_path:
        return changes
    file = from_store(module_path, workspace) if workspace else Path(module_path)
    try:
        code = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        code = None
    if code is not None:
        changes["source"] = code
        changes["source_hash"] = hashlib.sha256(code.encode("utf-8")).hexdigest()
    if workspace is not None and Path(module_path).is_absolute():
        relative = to_store(file, workspace)
        if relative != str(file):
            changes["module_path"] = relative
    return changes
