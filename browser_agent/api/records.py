"""What the Python API gives back: plain dataclasses made from the store's rows (no row
leaves the API), its errors, and the store opened for one with block."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from browser_agent.errors import BrowserAgentError, UserError

SHOWN_IDS = 5  # ids named when the start of one matches several runs

if TYPE_CHECKING:
    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.settings import Settings
    from browser_agent.store.connection import Store
    from browser_agent.store.health import Health
    from browser_agent.store.rows import RunRow, SkillRow, StepRow


class SkillNotFound(UserError, LookupError):
    """No current skill has that name."""


class RunNotFound(UserError, LookupError):
    """No run has that id (``ids`` is empty), or several start with what was ``given``
    (``ids`` names some); the message says where the ids are listed."""

    def __init__(self, given: str, ids: list[str], listing: str = "Agent.runs() lists the ids"):
        self.given, self.ids = given, ids
        super().__init__(self.said(listing))

    def said(self, listing: str) -> str:
        """The error in one line, pointing to ``listing`` for the ids."""
        if not self.ids:
            return f"No run {self.given!r}: {listing}."
        shown = ", ".join(self.ids[:SHOWN_IDS]) + (", ..." if len(self.ids) > SHOWN_IDS else "")
        return f"{self.given!r} starts several run ids ({shown}): give more of the id."


class SkillArgumentError(UserError, ValueError):
    """A skill was called with a parameter it does not have, without one it needs, or with
    a value of another type than its signature says; ``parameter`` names it."""

    def __init__(self, message: str, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


class SkillFailed(BrowserAgentError, RuntimeError):
    """A skill ran but did not do its command; the message says what failed and where.
    ``kind`` is what the failure says of the skill: ``broken`` (a step no longer fits the
    page, or the end is not what was asked), ``not_applicable`` (a value is not on the page)
    or ``late`` (the page was slower than the step's deadline); ``stale`` says the skill
    was marked stale by it, ``unverified`` that its steps ran but the final page does not
    show what was asked."""

    def __init__(self, message: str, *, kind: str, stale: bool, unverified: bool) -> None:
        super().__init__(message)
        self.kind, self.stale, self.unverified = kind, stale, unverified


@dataclass(frozen=True)
class Parameter:
    """One parameter of a skill: its name, type, what it is, and its default if optional."""

    name: str
    type: str
    description: str
    required: bool
    default: object = None


@dataclass(frozen=True)
class SkillVersion:
    """One stored version of a skill and its status (only one of them is current)."""

    version: int
    status: str


@dataclass(frozen=True)
class SkillInfo:
    """The current version of a harvested skill, as listed (``refused`` says why a skill
    whose stored plan or code does not check is never run; ``lacks`` what a partial one
    does not do; ``health`` its recent runs and replays). ``versions`` and ``source`` (the
    code that runs, None when refused) are filled by :meth:`Agent.skill_info`."""

    name: str
    version: int
    status: str
    command_templates: list[str]
    example_args: dict[str, object]
    start_url: str
    partial: bool
    uses: int
    successes: int
    failures: int
    last_error: str | None
    refused: str | None
    lacks: str | None
    last_validated_at: datetime | None
    module_path: str
    source_runs: list[str]
    health: Health
    versions: list[SkillVersion] = field(default_factory=list)
    source: str | None = None


@dataclass(frozen=True)
class StepInfo:
    """One step of a run: the tool, its arguments (JSON text), the answer and its outcome."""

    index: int
    tool: str
    arguments: str
    ok: bool
    response: str
    error: str | None
    seconds: float
    url_after: str | None


@dataclass(frozen=True)
class RunInfo:
    """A stored run; ``steps`` is filled by :meth:`Agent.run_info` (empty in listings)."""

    id: str
    command: str
    status: str
    answer: str | None
    error: str | None
    model: str
    start_url: str | None
    final_url: str | None
    step_count: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    started_at: datetime
    finished_at: datetime | None
    log_path: str
    steps: list[StepInfo] = field(default_factory=list)


@dataclass(frozen=True)
class HarvestInfo:
    """What harvesting one run gave: its outcome, the skill made or joined (``skill``,
    ``version``), whether a replay verified it, and why not when it did not."""

    source: str
    outcome: str
    skill: str | None
    version: int | None
    verified: bool | None
    reason: str | None


class OpenStore:
    """The workspace's store for a with block, its connection closed after."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __enter__(self) -> Store:
        from browser_agent.store.run_store import open_run_store

        self.store = open_run_store(self.settings)
        return self.store

    def __exit__(self, *_exc: object) -> None:
        self.store.close()


def skill_record(
    row: SkillRow,
    refused: str | None,
    health: Health,
    versions: list[SkillVersion] | None = None,
) -> SkillInfo:
    """A skill row as the API lists it; with ``versions``, as it shows one skill (with
    the code that runs, unless refused)."""
    from browser_agent.plans.partial import lacking
    from browser_agent.store.skill_use import loads

    templates, example = loads(row.command_templates), loads(row.example_args)
    runs = loads(row.source_runs)
    return SkillInfo(
        name=row.name,
        version=row.version,
        status="refused" if refused else row.status,
        command_templates=templates if isinstance(templates, list) else [],
        example_args=example if isinstance(example, dict) else {},
        start_url=row.start_url,
        partial=not row.complete,
        uses=row.uses,
        successes=row.successes,
        failures=row.failures,
        last_error=row.last_error,
        refused=refused,
        lacks=None if row.complete else lacking(row.docstring),
        last_validated_at=row.last_validated_at,
        module_path=row.module_path,
        source_runs=runs if isinstance(runs, list) else [],
        health=health,
        versions=versions or [],
        source=row.source if versions is not None and not refused else None,
    )


def step_record(step: StepRow) -> StepInfo:
    """A stored step as the API shows it."""
    return StepInfo(
        index=step.index,
        tool=step.tool,
        arguments=step.arguments,
        ok=bool(step.ok),
        response=step.response,
        error=step.error,
        seconds=step.duration_s,
        url_after=step.url_after,
    )


def harvest_record(result: HarvestResult) -> HarvestInfo:
    """One harvest outcome as the API gives it."""
    skill = result.skill
    return HarvestInfo(
        source=result.source,
        outcome=result.outcome,
        skill=skill.name if skill is not None else result.name,
        version=skill.version if skill is not None else None,
        verified=result.verified,
        reason=result.reason or result.error or result.verify_error,
    )


def run_record(row: RunRow, settings: Settings, log: Path | None = None) -> RunInfo:
    """A stored run as the API lists it, priced by the settings' prices, its log's path in
    their workspace (``log`` when it is known better, as the store's copy written here)."""
    from browser_agent.llm.prices import cost_of_run
    from browser_agent.store.paths import from_store

    if log is None and row.log_path:
        log = from_store(row.log_path, settings.workspace)
    return RunInfo(
        id=row.id,
        command=row.command,
        status=row.status,
        answer=row.answer,
        error=row.error,
        model=row.model,
        start_url=row.start_url,
        final_url=row.final_url,
        step_count=row.steps,
        llm_calls=row.llm_calls,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        cost_usd=cost_of_run(row, settings.prices),
        started_at=row.started_at,
        finished_at=row.finished_at,
        log_path=str(log) if log is not None else "",
    )
