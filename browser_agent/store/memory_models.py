"""The memory across runs in the store: its table (the manager's chat context, short- and
long-term memory) and the queries on it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Field, Session, SQLModel, col, delete, select

from browser_agent.store.models import utcnow

KINDS = ("chat", "short", "long")


class MemoryEntry(SQLModel, table=True):
    """One remembered text: a chat-context line, a short-term key point or a long-term fact."""

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(index=True)  # chat, short, long
    text: str  # redacted like every value that came from a page or a model
    tokens: int = 0
    run_id: str | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)


def add_entries(
    engine: Engine, new: list[MemoryEntry], replacing: Sequence[MemoryEntry] = ()
) -> None:
    """Store ``new`` entries in place of ``replacing`` ones, in one transaction."""
    with Session(engine) as db:
        if replacing:
            old = [entry.id for entry in replacing]
            db.exec(delete(MemoryEntry).where(col(MemoryEntry.id).in_(old)))
        db.add_all(new)
        db.commit()


def entries(
    engine: Engine, kind: str | None = None, contains: str | None = None, limit: int | None = None
) -> list[MemoryEntry]:
    """Stored memories, oldest first; of one kind, or containing a text, when asked."""
    query = select(MemoryEntry).order_by(col(MemoryEntry.id))
    if kind is not None:
        query = query.where(MemoryEntry.kind == kind)
    if contains:
        query = query.where(col(MemoryEntry.text).icontains(contains))
    if limit is not None:
        query = query.limit(limit)
    with Session(engine) as db:
        return list(db.exec(query).all())


def clear_entries(engine: Engine) -> int:
    """Delete every memory; returns how many there were."""
    with Session(engine) as db:
        count = len(db.exec(select(MemoryEntry.id)).all())
        db.exec(delete(MemoryEntry))
        db.commit()
    return count
