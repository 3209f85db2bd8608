"""Keeping what a replay showed: a Validation row, and the skill's status."""

from __future__ import annotations

from sqlalchemy import Engine

from browser_agent.failure_kinds import BROKEN
from browser_agent.skills.replay_session import Replay, relative
from browser_agent.store.health import OK, VALIDATION, keep_outcome
from browser_agent.store.models import Skill, Validation, utcnow
from browser_agent.store.skills import update_skill
from browser_agent.store.validations import keep_validation


def start_url_for(skill: Skill, base_url: str | None) -> str | None:
    """The start page on another site (``base_url``, which may end in a path prefix),
    keeping the recorded path and query; None keeps the recorded start page."""
    if not base_url:
        return None
    return base_url.rstrip("/") + (relative(skill.start_url) or "/")


def failure(outcome: Replay) -> str:
    """The replay's failure in one line: step, selector and error."""
    where = f"step {outcome.step} ({outcome.selector}): " if outcome.step else ""
    return f"{where}{outcome.error}"


def keep_replay(
    engine: Engine,
    skill: Skill,
    outcome: Replay,
    *,
    failed_status: str = "stale",
    job_id: str | None = None,
    window: int = 20,
) -> Skill:
    """Store the replay as a Validation row and an outcome in the skill's health window
    (of ``window``); the skill becomes healthy when it passed, ``failed_status`` when it
    failed broken (with the failing step and selector as its last error), and stays as it
    was when it was only late or did not apply. A distributed job's replay is kept once
    under its ``job_id``: a second attempt of the job (its first worker died) adds no
    row."""
    row = Validation(
        skill_id=skill.id,
        skill_name=skill.name,
        version=skill.version,
        passed=outcome.passed,
        job_id=job_id,
        **outcome.findings(),
    )
    kind = OK if outcome.passed else outcome.kind or BROKEN
    if keep_validation(engine, row):  # in the window once, as the row
        error = None if outcome.passed else failure(outcome)
        keep_outcome(
            engine, skill.id, VALIDATION, kind, window=window, step=outcome.step, error=error
        )
    broken = kind == BROKEN
    return update_skill(
        engine,
        skill.id,
        status="healthy" if outcome.passed else failed_status if broken else skill.status,
        last_error=None if outcome.passed else failure(outcome),
        last_validated_at=utcnow(),
        broken_step=None if outcome.passed else outcome.step,
    )
