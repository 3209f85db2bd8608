"""Tables of the memory across runs: the manager's chat context, short- and long-term memory."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

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
