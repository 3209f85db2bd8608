"""The rows a run writes and reads, as plain dataclasses: what the run path holds instead
of the ORM's table classes (:mod:`browser_agent.store.models`), which need SQLAlchemy.

Each has the fields of its table, with the same names, types and defaults (a test compares
them), so the SQL here is made from the fields and a row read by the ORM elsewhere is
the same row.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunRow:
    """A ``run`` row: one command carried out by the agent (see ``models.Run``)."""

    id: str
    command: str
    start_url: str | None = None
    status: str = "running"
    answer: str | None = None
    error: str | None = None
    model: str = ""
    started_at: datetime = field(default_factory=utcnow)
    finished_at: datetime | None = None
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_url: str | None = None
    log_path: str = ""
    pid: int | None = None
    host: str | None = None

    @classmethod
    def read(cls, row: dict[str, Any]) -> RunRow:
        """A row as the driver gives it, with its times as the ORM reads them (UTC)."""
        made = cls(**row)
        made.started_at = _time(made.started_at) or made.started_at
        made.finished_at = _time(made.finished_at)
        return made

    def as_json(self) -> dict[str, Any]:
        """The row as JSON values: times in ISO 8601 with ``Z`` for UTC."""
        return {
            key: _json_time(value) if isinstance(value, datetime) else value
            for key, value in asdict(self).items()
        }


@dataclass
class StepRow:
    """A ``step`` row: one tool call of a run (see ``models.Step``)."""

    run_id: str
    index: int
    tool: str
    arguments: str
    response: str
    id: int | None = None
    ok: bool = True
    error: str | None = None
    duration_s: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    url_after: str | None = None


@dataclass
class SkillRow:
    """A ``skill`` row: one version of a harvested skill (see ``models.Skill``)."""

    name: str
    module_path: str
    shape: str
    id: int | None = None
    version: int = 1
    current: bool = True
    status: str = "candidate"
    command_templates: str = "[]"
    signature: str = "{}"
    docstring: str = ""
    example_args: str = "{}"
    start_url: str = ""
    expected_end: str = ""
    complete: bool = True
    selectors: str = "[]"
    source_runs: str = "[]"
    healed: str = "{}"
    plan: str = ""
    source: str = ""
    source_hash: str = ""
    uses: int = 0
    successes: int = 0
    failures: int = 0
    last_error: str | None = None
    last_validated_at: datetime | None = None
    created_at: datetime = field(default_factory=utcnow)

    @classmethod
    def read(cls, row: dict[str, Any]) -> SkillRow:
        """A row as the driver gives it, with values as the ORM reads them: SQLite's 0/1
        made bool, times (SQLite's text, a server's zone) made UTC times."""
        made = cls(**row)
        made.current, made.complete = bool(made.current), bool(made.complete)
        made.last_validated_at = _time(made.last_validated_at)
        made.created_at = _time(made.created_at) or made.created_at
        return made


def columns(row_type: type) -> list[str]:
    """The column names of a row type, in its fields' order."""
    return [f.name for f in fields(row_type)]


def _json_time(value: datetime) -> str:
    text = value.isoformat()
    return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text


def _time(value: datetime | str | None) -> datetime | None:
    """A stored time as a UTC time; SQLite keeps UTC times as text without a zone."""
    if value is None:
        return None
    value = datetime.fromisoformat(value) if isinstance(value, str) else value
    return value.replace(tzinfo=UTC) if value.utcoffset() is None else value.astimezone(UTC)
