"""The store's run, step and skill tables, defined once, as plain dataclasses.

A run holds these rows and writes them with the driver alone (no SQLAlchemy on a routed
run); :mod:`browser_agent.store.models` makes the ORM's table classes from the same fields,
so there is one definition of each table, and the SQL here is made from its fields. A
field's metadata says what the column needs besides its type: ``primary_key``, ``index``,
``foreign_key`` (``"table.column"``), ``text`` (no length limit) and ``server_default``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

KEY = {"primary_key": True}
INDEX = {"index": True}
TEXT = {"text": True}


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunRow:
    """One command carried out by the agent, written at the start and updated as it goes."""

    id: str = field(metadata=KEY)
    command: str
    start_url: str | None = None
    # running, succeeded, unverified (it ended, but its final page does not show the command
    # done), failed, interrupted, abandoned (its process died while running it)
    status: str = field(default="running", metadata=INDEX)
    answer: str | None = None
    error: str | None = None
    model: str = ""
    started_at: datetime = field(default_factory=utcnow, metadata=INDEX)
    finished_at: datetime | None = None
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_url: str | None = None
    log_path: str = ""
    pid: int | None = None  # the process running it, on ``host``: see store.abandoned
    host: str | None = None
    cost_usd: float | None = None  # priced when it ended; None: its model had no price

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
    """One tool call of a run: what was asked, what the page answered, what it cost."""

    run_id: str = field(metadata={"foreign_key": "run.id", **INDEX})
    index: int
    tool: str
    arguments: str  # JSON text as the model sent it (redacted)
    response: str
    id: int | None = field(default=None, metadata=KEY)
    ok: bool = True
    error: str | None = None
    duration_s: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    url_after: str | None = None


@dataclass
class DecisionRow:
    """A person's decision on an action the planner proposed (approval mode): approved,
    rejected or corrected, with their note and the context the model had proposed it on.
    The feedback a dataset is made from (``browser-agent feedback export``); masked as the
    run's other rows are."""

    run_id: str = field(metadata={"foreign_key": "run.id", **INDEX})
    step: int  # the index of the step that recorded what came of it
    verdict: str  # approved, rejected or corrected
    action: str  # the action as the person was shown it
    tool: str  # the proposed call
    arguments: str
    id: int | None = field(default=None, metadata=KEY)
    corrected_tool: str | None = None  # corrected: the call that ran instead
    corrected_arguments: str | None = None
    note: str = ""
    context: str = field(default="[]", metadata=TEXT)  # JSON: the messages the model got
    tools: str = field(default="[]", metadata=TEXT)  # JSON: the tool schemas it was offered
    # rejected: the model's next reply (JSON message), once it had read the note
    followed_by: str = field(default="", metadata=TEXT)
    decided_at: datetime = field(default_factory=utcnow, metadata=INDEX)

    @classmethod
    def read(cls, row: dict[str, Any]) -> DecisionRow:
        """A row as the driver gives it, its time as the ORM reads it (UTC)."""
        made = cls(**row)
        made.decided_at = _time(made.decided_at) or made.decided_at
        return made


@dataclass
class SkillRow:
    """One version of a harvested skill. JSON columns hold lists and objects as text. The
    store's table (store.models.Skill) is made from these fields, so code that reads a
    skill takes a SkillRow and may be given either."""

    name: str = field(metadata=INDEX)
    module_path: str  # relative to the workspace (see store.paths)
    shape: str = field(metadata=INDEX)  # the command template, normalised, for re-harvesting
    id: int | None = field(default=None, metadata=KEY)
    version: int = 1
    current: bool = field(default=True, metadata=INDEX)
    status: str = field(default="candidate", metadata=INDEX)  # candidate healthy stale retired
    command_templates: str = "[]"
    signature: str = "{}"  # the tool schema
    docstring: str = ""
    example_args: str = "{}"
    start_url: str = ""
    expected_end: str = ""  # URL path and query reached with the example arguments
    complete: bool = True  # False: the command needed more than the skill does (e.g. reading)
    selectors: str = "[]"  # the element records the skill acts on
    source_runs: str = "[]"
    healed: str = "{}"  # step -> selector found by healing, for the next version
    # the plan (JSON, see plans.plan_data) the module that runs is made from at load time
    plan: str = field(default="", metadata={**TEXT, "server_default": ""})
    source: str = field(default="", metadata=TEXT)  # the module's code, as the plan makes it
    source_hash: str = ""  # sha256 of source, checked before it is run
    uses: int = 0
    successes: int = 0
    failures: int = 0
    last_error: str | None = None
    # may do a whole command (see store.routability): set whenever its health is written
    routable: bool = field(default=False, metadata={"server_default": "0"})
    last_validated_at: datetime | None = None
    created_at: datetime = field(default_factory=utcnow)

    @classmethod
    def read(cls, row: dict[str, Any]) -> SkillRow:
        """A row as the driver gives it, with values as the ORM reads them: SQLite's 0/1
        made bool, times (SQLite's text, a server's zone) made UTC times."""
        made = cls(**row)
        made.current, made.complete = bool(made.current), bool(made.complete)
        made.routable = bool(made.routable)
        made.last_validated_at = _time(made.last_validated_at)
        made.created_at = _time(made.created_at) or made.created_at
        return made


@dataclass
class WatchRow:
    """A command checked on a schedule (``browser-agent watch``): how often, until what,
    whom to tell, and when it is due next."""

    name: str = field(metadata={"unique": True, **INDEX})
    command: str  # masked as a run's command is
    every_s: int
    next_at: datetime = field(metadata=INDEX)
    id: int | None = field(default=None, metadata=KEY)
    start_url: str | None = None
    until: str | None = None  # the condition, in the words the person wrote
    notify: str | None = None  # a command or an http(s) URL told of each event
    keep_going: bool = False  # True: the condition notifies, and the watch goes on
    schedule: str | None = None  # a cron expression (local time) instead of every_s
    status: str = field(default="active", metadata=INDEX)  # active, paused, done
    checks: int = 0
    last_at: datetime | None = None
    last_status: str | None = None
    created_at: datetime = field(default_factory=utcnow)

    @classmethod
    def read(cls, row: dict[str, Any]) -> WatchRow:
        """A row as the driver gives it, with its flags and times as the ORM reads them."""
        made = cls(**row)
        made.keep_going = bool(made.keep_going)
        made.next_at = _time(made.next_at) or made.next_at
        made.last_at = _time(made.last_at)
        made.created_at = _time(made.created_at) or made.created_at
        return made

    def as_json(self) -> dict[str, Any]:
        """The row as JSON values: times in ISO 8601 with ``Z`` for UTC."""
        return _as_json(self)


@dataclass
class WatchCheckRow:
    """One check of a watch: the run it made and what came of it."""

    watch_id: int = field(metadata={"foreign_key": "watch.id", **INDEX})
    status: str  # the run's status, or ``error`` when the check itself broke
    id: int | None = field(default=None, metadata=KEY)
    at: datetime = field(default_factory=utcnow)
    run_id: str | None = None
    answer: str = field(default="", metadata=TEXT)
    extracted: str = "{}"  # JSON: the values read from the final page (``price``: 89.0)
    final_url: str | None = None
    llm_calls: int = 0
    seconds: float = 0.0
    changed: str | None = None  # what differs from the check before, said once
    held: bool = False  # the watch's condition held on this check
    notified: str | None = None  # how telling the notify hook went
    error: str | None = None
    page: str = field(default="", metadata={**TEXT, "server_default": ""})  # its text, cut

    @classmethod
    def read(cls, row: dict[str, Any]) -> WatchCheckRow:
        made = cls(**row)
        made.held = bool(made.held)
        made.at = _time(made.at) or made.at
        return made

    def as_json(self) -> dict[str, Any]:
        """The row as JSON values, its values as an object."""
        made = _as_json(self)
        made["extracted"] = json.loads(self.extracted or "{}")
        del made["page"]  # the page's whole text: what changed in it is in ``changed``
        return made


def _as_json(row: Any) -> dict[str, Any]:
    return {
        key: _json_time(value) if isinstance(value, datetime) else value
        for key, value in asdict(row).items()
    }


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
