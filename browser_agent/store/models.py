"""Tables of the store. Every value that came from a page or a model is stored redacted."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from browser_agent.store.rows import utcnow


class Run(SQLModel, table=True):
    """One command carried out by the agent, written at the start and updated as it goes."""

    id: str = Field(primary_key=True)
    command: str
    start_url: str | None = None
    # running, succeeded, unverified (it ended, but its final page does not show the command
    # done), failed, interrupted, abandoned (its process died while running it)
    status: str = Field(default="running", index=True)
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
    pid: int | None = None  # the process running it, on ``host``: see store.abandoned
    host: str | None = None


class RunLog(SQLModel, table=True):
    """A run's chat log and its metadata as JSON text, and its iteration records (one JSON
    line per model call), kept in the store when ``BROWSER_AGENT_LOGS_IN_STORE`` is set, so
    a run made on another machine (a cluster worker) can be shown and harvested from this
    one. Masked as the files are."""

    run_id: str = Field(foreign_key="run.id", primary_key=True)
    log: str = Field(sa_type=Text)
    meta: str = Field(sa_type=Text)
    iterations: str = Field(default="", sa_column_kwargs={"server_default": ""}, sa_type=Text)


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


class Skill(SQLModel, table=True):
    """One version of a harvested skill. JSON columns hold lists and objects as text."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    version: int = 1
    current: bool = Field(default=True, index=True)
    status: str = Field(default="candidate", index=True)  # candidate healthy stale retired
    module_path: str  # relative to the workspace (see store.paths)
    shape: str = Field(index=True)  # the command template, normalised, for re-harvesting
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
    source: str = Field(default="", sa_type=Text)  # the module's code: the store is enough
    source_hash: str = ""  # sha256 of source, checked before it is run
    uses: int = 0
    successes: int = 0
    failures: int = 0
    last_error: str | None = None
    last_validated_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class Validation(SQLModel, table=True):
    """One replay of a skill by the validator (or verification right after harvesting)."""

    id: int | None = Field(default=None, primary_key=True)
    skill_id: int = Field(foreign_key="skill.id", index=True)
    skill_name: str
    version: int
    passed: bool
    step: int | None = None
    selector: str | None = None
    error: str | None = None
    screenshot: str | None = None
    final_url: str | None = None
    seconds: float = 0.0
    checked_at: datetime = Field(default_factory=utcnow)
    # the distributed validation job it was made by: a job run again after its worker died
    # finds its replay kept and adds none
    job_id: str | None = Field(default=None, unique=True, index=True)


class HarvestedSource(SQLModel, table=True):
    """A log the harvester has read, and what came of it: each source is harvested once
    unless asked again. ``key`` is ``run <id>`` for the agent's own runs, and for other
    logs the path relative to the workspace with a hash of the content
    (``logs/x.json sha256:…``), so an edited file counts as a new source."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(index=True, unique=True)
    run_id: str | None = Field(default=None, index=True)
    path: str = ""  # relative to the workspace when inside it
    outcome: str  # new skill, new version, unchanged, skipped, failed
    detail: str | None = None  # why it was skipped or failed
    skill_name: str | None = None
    skill_version: int | None = None
    harvested_at: datetime = Field(default_factory=utcnow)


class BatchJob(SQLModel, table=True):
    """The result of one job of a batch or a distributed validation, written once under its
    job id: a job run again (its worker died) finds it here and is not counted twice."""

    job_id: str = Field(primary_key=True)
    batch_id: str = Field(index=True)
    kind: str  # run (a command) or validate (a skill's replay)
    command: str  # the command, or the skill's name
    status: str  # a run's status, or a validation's verdict
    run_id: str | None = None
    llm_calls: int = 0
    seconds: float = 0.0
    detail: str = "{}"  # JSON: the validation's verdict in full
    worker: str | None = None
    finished_at: datetime = Field(default_factory=utcnow)


class SkillOutcome(SQLModel, table=True):
    """How one run or validation of a skill version went, and its kind of failure: the
    window a skill's health is read from (see store.health)."""

    id: int | None = Field(default=None, primary_key=True)
    skill_id: int = Field(foreign_key="skill.id", index=True)
    via: str  # run or validation
    kind: str  # ok, late, not_applicable or broken (see browser_agent.failure_kinds)
    step: int | None = None
    error: str | None = None
    at: datetime = Field(default_factory=utcnow)
