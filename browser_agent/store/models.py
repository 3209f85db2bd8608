"""Tables of the store. Every value that came from a page or a model is stored redacted."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class Run(SQLModel, table=True):
    """One command carried out by the agent, written at the start and updated as it goes."""

    id: str = Field(primary_key=True)
    command: str
    start_url: str | None = None
    status: str = Field(default="running", index=True)  # running, succeeded, failed, interrupted
    answer: str | None = None
    error: str | None = None
    model: str = ""
    started_at: datetime = Field(default_factory=utcnow, index=True)
    finished_at: datetime | None = None
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_url: str | None = None
    log_path: str = ""


class Step(SQLModel, table=True):
    """One tool call of a run: what was asked, what the page answered, what it cost."""

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="run.id", index=True)
    index: int
    tool: str
    arguments: str  # JSON text as the model sent it (redacted)
    response: str
    ok: bool = True
    error: str | None = None
    duration_s: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    url_after: str | None = None
