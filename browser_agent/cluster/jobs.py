"""A job (one command of a batch, or one skill's replay) and its result, written once.

A job's result goes to the ``batchjob`` table under its job id before it is reported. A
job started again (its worker died after writing, or the scheduler sent it twice) finds
its result there and returns it without running, so nothing is counted twice. A job that
fails for its own reasons (a failed run, a stale skill) is a result like any other; only
a browser that went away while the job ran raises :class:`BrowserLost`, which a cluster
answers by running the job again elsewhere.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import asdict, dataclass, field

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.errors import BrowserAgentError
from browser_agent.secrets import configured, key, masked_command
from browser_agent.settings import Settings
from browser_agent.store.batch_jobs import keep_job_once, stored_job
from browser_agent.store.models import BatchJob

RUN, VALIDATE = "run", "validate"
#: The status of a job that could not run at all (no result of its own).
ERROR = "error"


class BrowserLost(BrowserAgentError, RuntimeError):
    """The browser disconnected while a job used it: the job's failure is not its own."""


@dataclass(frozen=True)
class CommandJob:
    """One command of a batch: where it starts and the names of the secrets it types."""

    job_id: str
    batch_id: str
    command: str
    url: str | None = None
    secrets: tuple[str, ...] = ()
    model: str | None = None
    max_steps: int = 30

    @property
    def label(self) -> str:
        """The command as it may be shown and stored: a value it gives after "password"
        (or "PIN", "token", ...) replaced by its placeholder."""
        return masked_command(self.command, {})[0]


@dataclass(frozen=True)
class ValidateJob:
    """One skill's replay in a distributed validation."""

    job_id: str
    batch_id: str
    skill: str
    base_url: str | None = None

    @property
    def label(self) -> str:
        return self.skill


@dataclass
class JobResult:
    """What one job came to, as ``--json`` shows it."""

    job_id: str
    command: str
    status: str
    run_id: str | None = None
    llm_calls: int = 0
    seconds: float = 0.0
    error: str | None = None
    worker: str | None = None
    detail: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        shown = asdict(self)
        shown.pop("detail")
        return shown


def job_ids(batch_id: str, count: int) -> list[str]:
    """``BATCH-0001`` ...: one id per job, in the batch's order."""
    return [f"{batch_id}-{index:04d}" for index in range(1, count + 1)]


def recorded(engine: Engine, job_id: str) -> JobResult | None:
    """The result already written for ``job_id``, or None."""
    row = stored_job(engine, job_id)
    return None if row is None else _result(row)


def record_once(
    engine: Engine, job_id: str, batch_id: str, kind: str, result: JobResult
) -> JobResult:
    """Write ``result`` under ``job_id`` unless a result is there already; the stored one
    wins, so two attempts of a job report the same thing."""
    row = BatchJob(
        job_id=job_id,
        batch_id=batch_id,
        kind=kind,
        command=result.command,
        status=result.status,
        run_id=result.run_id,
        llm_calls=result.llm_calls,
        seconds=result.seconds,
        detail=json.dumps(result.detail),
        worker=result.worker,
    )
    stored = keep_job_once(engine, row)
    return result if stored is None else _result(stored)


def _result(row: BatchJob) -> JobResult:
    detail = json.loads(row.detail or "{}")
    return JobResult(
        job_id=row.job_id,
        command=row.command,
        status=row.status,
        run_id=row.run_id,
        llm_calls=row.llm_calls,
        seconds=row.seconds,
        error=detail.get("error"),
        worker=row.worker,
        detail=detail,
    )


def worker_name() -> str:
    """Which machine and process ran a job."""
    import os

    return f"{socket.gethostname()}:{os.getpid()}"


def named_secrets(names: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    """The configured values of the secrets ``names``, and the names not configured here."""
    known = configured()
    found = {key(name): known[key(name)] for name in names if key(name) in known}
    return found, [name for name in names if key(name) not in known]


async def run_job(
    job: CommandJob, browser: Browser, settings: Settings, engine: Engine
) -> JobResult:
    """Carry out one command in a fresh context of ``browser`` and write its result once."""
    done = recorded(engine, job.job_id)
    if done is not None:
        return done
    secrets, missing = named_secrets(job.secrets)
    if missing:
        error = f"secret {missing[0]} is not configured where the job ran"
        failed = JobResult(job.job_id, job.label, "failed", error=error, worker=worker_name())
        failed.detail = {"error": error}
        return record_once(engine, job.job_id, job.batch_id, RUN, failed)
    from browser_agent.llm.choose import (
        make_llm,  # the offline planner unless a model is configured
    )
    from browser_agent.planner.agent import run_command

    try:
        outcome = await run_command(
            job.command,
            make_llm(settings, job.model),
            settings,
            start_url=job.url,
            max_steps=job.max_steps,
            browser=browser,
            engine=engine,
            secrets=secrets,
        )
    except Exception as exc:
        _unless_lost(browser, job.job_id, exc)
        raise
    if outcome.status != "succeeded":
        _unless_lost(browser, job.job_id)
    result = JobResult(
        job.job_id,
        job.label,
        outcome.status,
        outcome.run_id,
        outcome.llm_calls,
        round(outcome.seconds, 3),
        error=None if outcome.status == "succeeded" else outcome.answer or None,
        worker=worker_name(),
    )
    result.detail = {"error": result.error} if result.error else {}
    return record_once(engine, job.job_id, job.batch_id, RUN, result)


async def validate_job(
    job: ValidateJob, browser: Browser, settings: Settings, engine: Engine
) -> JobResult:
    """Replay one skill (its current version, loaded from the store) and write the verdict
    once; ``detail`` holds the verdict in full."""
    from browser_agent.store.skills import skill_by_name
    from browser_agent.validate.reharvest import Place
    from browser_agent.validate.validator import Job, check_skill

    done = recorded(engine, job.job_id)
    if done is not None:
        return done
    skill = skill_by_name(engine, job.skill)
    if skill is None:
        error = f"There is no skill {job.skill!r} in the store where the job ran."
        missing = JobResult(job.job_id, job.skill, ERROR, error=error, worker=worker_name())
        missing.detail = {"name": job.skill, "version": 0, "verdict": ERROR, "error": error}
        return record_once(engine, job.job_id, job.batch_id, VALIDATE, missing)
    screenshots = settings.workspace / "reports" / "screenshots"
    place = Place(browser, job.base_url, screenshots, configured())
    started = time.perf_counter()
    checked = await check_skill(
        skill, Job(settings, engine, place, reharvest=False, job_id=job.job_id)
    )
    if checked.verdict != "healthy":
        _unless_lost(browser, job.job_id)
    result = JobResult(
        job.job_id,
        job.skill,
        checked.verdict,
        seconds=round(time.perf_counter() - started, 3),
        error=checked.error,
        worker=worker_name(),
        detail=asdict(checked),
    )
    return record_once(engine, job.job_id, job.batch_id, VALIDATE, result)


def _unless_lost(browser: Browser, job_id: str, failure: BaseException | None = None) -> None:
    """BrowserLost when ``browser`` went away during the job (its ``failure`` then is not
    the job's own, and the job runs again elsewhere); nothing while it is connected."""
    if not browser.is_connected():
        raise BrowserLost(f"the browser went away during job {job_id}") from failure
