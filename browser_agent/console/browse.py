"""What the console's browsing pages read from the store: runs (filtered), a run's steps,
skills with their source, and retiring or restoring a skill."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from browser_agent.store.models import Run, Skill, Step
from browser_agent.store.skills import skill_by_name, update_skill, versions_of

RUNS_SHOWN = 200
RETIRED = "retired"
RESTORED = "candidate"  # routes again once validation finds it healthy


def find_runs(engine: Engine, status: str | None, text: str | None) -> Sequence[Run]:
    """The newest runs, only those with ``status`` and whose command contains ``text``
    (any case) when given."""
    query = select(Run).order_by(col(Run.started_at).desc()).limit(RUNS_SHOWN)
    if status:
        query = query.where(Run.status == status)
    if text:
        query = query.where(col(Run.command).icontains(text, autoescape=True))
    with Session(engine) as db:
        return db.exec(query).all()


def run_with_steps(engine: Engine, run_id: str) -> tuple[Run, Sequence[Step]] | None:
    """A run and its steps in order; None when no run has that id."""
    with Session(engine) as db:
        run = db.get(Run, run_id)
        if run is None:
            return None
        steps = db.exec(select(Step).where(Step.run_id == run_id).order_by(Step.index)).all()
        return run, steps


@dataclass
class SkillView:
    """A skill's current version, every version, and its source (or why there is none)."""

    skill: Skill
    versions: Sequence[Skill]
    source: str | None
    problem: str | None


def skill_view(engine: Engine, name: str, workspace: Path) -> SkillView | None:
    """The skill called ``name`` with its source; None when there is none."""
    from browser_agent.harvest.loader import SkillLoadError, skill_code

    skill = skill_by_name(engine, name)
    if skill is None:
        return None
    try:
        source, problem = skill_code(skill, workspace)[0], None
    except SkillLoadError as exc:
        source, problem = None, str(exc)
    return SkillView(skill, versions_of(engine, name), source, problem)


def set_retired(engine: Engine, name: str, retired: bool) -> Skill | None:
    """Retire the skill (it is no longer routed, offered or validated) or restore it as a
    candidate; None when there is no such skill."""
    skill = skill_by_name(engine, name)
    if skill is None or skill.id is None:
        return None
    if retired == (skill.status == RETIRED):
        return skill
    return update_skill(engine, skill.id, status=RETIRED if retired else RESTORED)
