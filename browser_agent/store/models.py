"""Tables of the store. Every value that came from a page or a model is stored redacted.

The run, step and skill tables are made from their rows' definitions
(:mod:`browser_agent.store.rows`), which a run uses without SQLAlchemy; the others are
defined here."""

from __future__ import annotations

from dataclasses import MISSING, fields
from datetime import datetime
from typing import Any, get_type_hints

from sqlalchemy import Text
from sqlmodel import Field, SQLModel
from sqlmodel.main import SQLModelMetaclass

from browser_agent.store.rows import (
    DecisionRow,
    RunRow,
    SkillRow,
    StepRow,
    WatchCheckRow,
    WatchRow,
    utcnow,
)


def _table(row: type) -> Any:
    """The ORM's table class for a row type of :mod:`browser_agent.store.rows`: the same
    fields, defaults and column options, so each table is defined once."""
    hints = get_type_hints(row)
    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": row.__doc__,
        "__annotations__": {},
    }
    for column in fields(row):
        options = {
            key: value
            for key, value in column.metadata.items()
            if key not in ("text", "server_default")
        }
        if column.metadata.get("text"):
            options["sa_type"] = Text
        if "server_default" in column.metadata:
            options["sa_column_kwargs"] = {"server_default": column.metadata["server_default"]}
        if column.default is not MISSING:
            options["default"] = column.default
        elif column.default_factory is not MISSING:
            options["default_factory"] = column.default_factory
        namespace["__annotations__"][column.name] = hints[column.name]
        namespace[column.name] = Field(**options)
    name = row.__name__.removesuffix("Row")
    return SQLModelMetaclass(name, (SQLModel,), namespace, table=True)


Run = _table(RunRow)
Step = _table(StepRow)
Skill = _table(SkillRow)
Watch = _table(WatchRow)
WatchCheck = _table(WatchCheckRow)
Decision = _table(DecisionRow)


class RunLog(SQLModel, table=True):
    """A run's chat log and its metadata as JSON text, and its iteration records (one JSON
    line per model call), kept in the store when ``BROWSER_AGENT_LOGS_IN_STORE`` is set, so
    a run made on another machine (a cluster worker) can be shown and harvested from this
    one. Masked as the files are."""

    run_id: str = Field(foreign_key="run.id", primary_key=True)
    log: str = Field(sa_type=Text)
    meta: str = Field(sa_type=Text)
    iterations: str = Field(default="", sa_column_kwargs={"server_default": ""}, sa_type=Text)


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
