"""The validator: replay harvested skills with their example arguments, concurrently, in
fresh contexts of one browser, and keep a verdict for each.

A replay that cannot find exactly one visible element for a recorded selector (or ends
elsewhere than recorded) makes the skill stale, with the failing step, selector, error
and a screenshot kept in a Validation row; a replay that passes makes it healthy again.
Validation never heals: a healed locator only becomes current through a new version
that passes (``reharvest``). A stale skill that a healing replay gets through with every
broken step found again relabelled stays routed, as after a run that healed so.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from datetime import datetime

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import launched_browser
from browser_agent.errors import BrowserAgentError
from browser_agent.failure_kinds import BROKEN
from browser_agent.secrets import configured
from browser_agent.settings import Settings
from browser_agent.skills.replay import lacking_secret
from browser_agent.skills.replay_session import Replay
from browser_agent.skills.stored import refusal
from browser_agent.store.candidates import earn_place, passes, waiting
from browser_agent.store.db import open_store
from browser_agent.store.health import health_of, recorded_pace
from browser_agent.store.models import Skill, utcnow
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import skill_by_name
from browser_agent.validate.lock import validation_lock
from browser_agent.validate.outcome import keep_replay
from browser_agent.validate.reharvest import Place, Renewal, heals_in_place, renew

HEALTHY, STALE, SECRET, ERROR = "healthy", "stale", "needs a secret", "error"
REFUSED = "refused"  # its stored plan or code does not check: never replayed
LATE, NOT_APPLICABLE = "late", "not applicable"  # failed, but not the skill: it stays as it was
VERDICTS = {BROKEN: STALE, "late": LATE, "not_applicable": NOT_APPLICABLE}


class CannotValidate(BrowserAgentError, RuntimeError):
    """Validation itself could not run: the lock is held, the browser did not start, or a
    named skill does not exist."""


@dataclass
class Checked:
    """The verdict on one skill (healthy, stale, needs a secret, or error when the replay
    could not run: it crashed or the site was unreachable), where it failed, and the new
    version ``--reharvest`` made."""

    name: str
    version: int
    verdict: str
    step: int | None = None
    selector: str | None = None
    error: str | None = None
    screenshot: str | None = None
    final_url: str | None = None
    seconds: float = 0.0
    renewed: Renewal | None = None
    health: dict | None = None  # the skill's health after it: state, window, last failures
    candidate: dict | None = None  # its newer version waiting to become current, replayed too

    @property
    def stale_now(self) -> bool:
        """Stale, and no new version passed in its place."""
        return self.verdict == STALE and not (self.renewed and self.renewed.passed)


@dataclass
class Report:
    """All verdicts of one validation, and what it amounts to."""

    checked: list[Checked] = field(default_factory=list)
    started_at: datetime = field(default_factory=utcnow)
    seconds: float = 0.0
    concurrency: int = 1
    base_url: str | None = None

    def exit_code(self) -> int:
        """0 all pass, 1 any skill stale or refused, 2 a replay could not run at all."""
        if any(c.verdict == ERROR for c in self.checked):
            return 2
        return 1 if any(c.stale_now or c.verdict == REFUSED for c in self.checked) else 0

    def as_dict(self) -> dict:
        counts: dict[str, int] = {}
        for checked in self.checked:
            counts[checked.verdict] = counts.get(checked.verdict, 0) + 1
        return {
            "started_at": self.started_at.isoformat(),
            "seconds": round(self.seconds, 2),
            "concurrency": self.concurrency,
            "base_url": self.base_url,
            "counts": counts,
            "exit_code": self.exit_code(),
            "skills": [asdict(c) for c in self.checked],
        }


@dataclass
class Job:
    """What every replay of one validation shares."""

    settings: Settings
    engine: Engine
    place: Place
    reharvest: bool
    job_id: str | None = None  # a distributed job's id: its replay is kept once


def never_loaded(outcome: Replay) -> bool:
    """True when the replay failed before any web page was open (the site is unreachable)."""
    return not outcome.passed and not (outcome.final_url or "").startswith("http")


async def check_skill(skill: Skill, job: Job) -> Checked:
    """Replay one skill and keep the verdict; never raises, so others go on. A refused
    skill is not replayed (nothing of it runs) and nothing is recorded on it."""
    refused = refusal(skill, job.settings.workspace)
    if refused:
        return Checked(skill.name, skill.version, REFUSED, error=refused)
    lacking = lacking_secret(skill, job.place.secrets)
    if lacking:  # not replayed, so not judged: the report says which secret to configure
        return Checked(skill.name, skill.version, SECRET, error=lacking)
    try:
        outcome = await _replayed(skill, job, screenshots=True)
    except Exception as exc:  # one crashing replay must not stop the others
        return Checked(skill.name, skill.version, ERROR, error=f"{type(exc).__name__}: {exc}")
    if never_loaded(outcome):  # the site is down, not the skill stale: judge nothing
        return Checked(skill.name, skill.version, ERROR, error=outcome.error)
    window = job.settings.health_window
    kept = keep_replay(job.engine, skill, outcome, job_id=job.job_id, window=window)
    checked = Checked(
        skill.name,
        skill.version,
        HEALTHY if outcome.passed else VERDICTS.get(outcome.kind, STALE),
        **outcome.findings(),
        health=health_of(job.engine, kept, window).as_json(),
    )
    waiting_version = waiting(job.engine, skill.name)
    if waiting_version is not None:
        checked.candidate = await check_candidate(waiting_version, job)
    if checked.verdict == STALE and not job.reharvest:
        checked.error = f"{checked.error or ''}{await _heals_in_place(kept, job)}"
    if checked.verdict == STALE and job.reharvest:
        try:
            checked.renewed = await renew(skill, job.settings, job.engine, job.place)
        except Exception as exc:  # the verdict stands; only the renewal failed
            checked.error = f"{checked.error} (renewing failed: {type(exc).__name__}: {exc})"
    return checked


async def _heals_in_place(skill: Skill, job: Job) -> str:
    """What a stale skill's verdict adds when runs heal it in place (see heals_in_place);
    a healing replay that crashed adds nothing: the verdict stands."""
    try:
        return await heals_in_place(skill, job.settings, job.engine, job.place)
    except Exception:  # the verdict stands; only the look for a relabelled control failed
        return ""


async def _replayed(skill: Skill, job: Job, screenshots: bool = False) -> Replay:
    """A replay of ``skill`` at the job's place, at the pace its site was recorded at."""
    pace = recorded_pace(job.engine, skill)
    return await job.place.replay(
        skill, job.settings, job.engine, screenshots=screenshots, pace=pace, candidates=True
    )


async def check_candidate(candidate: Skill, job: Job) -> dict:
    """Replay a verified candidate version; it becomes current once it has passed enough
    replays (see store.candidates). What happened, for the report."""
    try:
        outcome = await _replayed(candidate, job)
    except Exception as exc:  # the current version's verdict stands
        return {"version": candidate.version, "error": f"{type(exc).__name__}: {exc}"}
    window, needed = job.settings.health_window, job.settings.candidate_uses
    if not never_loaded(outcome):
        kept = keep_replay(job.engine, candidate, outcome, failed_status="candidate", window=window)
        candidate = earn_place(job.engine, kept, needed)
    return {
        "version": candidate.version,
        "verdict": HEALTHY if outcome.passed else VERDICTS.get(outcome.kind, STALE),
        "passes": passes(job.engine, candidate)[1],
        "needed": needed,
        "current": candidate.current,
        "error": outcome.error,
    }


async def validate_skills(
    skills: Sequence[Skill],
    job: Job,
    *,
    concurrency: int = 4,
    on_done: Callable[[Checked], None] | None = None,
) -> Report:
    """Replay ``skills`` with at most ``concurrency`` at a time, each in its own context."""
    report = Report(concurrency=concurrency, base_url=job.place.base_url)
    started = time.perf_counter()
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(skill: Skill) -> Checked:
        async with gate:
            checked = await check_skill(skill, job)
        if on_done:
            on_done(checked)
        return checked

    report.checked = list(await asyncio.gather(*(one(skill) for skill in skills)))
    report.seconds = time.perf_counter() - started
    return report


def chosen_skills(engine: Engine, names: Sequence[str], all_skills: bool) -> list[SkillRow]:
    """The current versions of the named skills, or of every skill not retired."""
    if all_skills:
        return [s for s in current_skills(engine) if s.status != "retired"]
    if not names:
        raise CannotValidate("Name the skills to validate, or use --all.")
    chosen: list[SkillRow] = []
    for name in names:
        skill = skill_by_name(engine, name)
        if skill is None:
            raise CannotValidate(f"There is no skill {name!r}; see browser-agent skills.")
        chosen.append(skill)
    return chosen


async def run_validation(
    settings: Settings,
    names: Sequence[str] = (),
    *,
    all_skills: bool = False,
    concurrency: int = 4,
    base_url: str | None = None,
    reharvest: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[Checked], None] | None = None,
    browser: Browser | None = None,
    secrets: dict[str, str] | None = None,
) -> Report:
    """Take the workspace's lock, pick the skills, start a browser (unless given) and
    validate, typing ``secrets`` (the configured ones when None) where skills name them.
    LockHeld, CannotValidate or BrowserError say why it could not run."""
    engine = open_store(settings)
    async with AsyncExitStack() as stack:
        stack.enter_context(validation_lock(settings))
        skills = chosen_skills(engine, names, all_skills)
        if on_start:
            on_start(len(skills))
        if browser is None:
            browser = await stack.enter_async_context(launched_browser(settings))
        screenshots = settings.workspace / "reports" / "screenshots"
        secrets = configured() if secrets is None else secrets
        place = Place(browser, base_url, screenshots, secrets)
        job = Job(settings, engine, place, reharvest)
        return await validate_skills(skills, job, concurrency=concurrency, on_done=on_done)
