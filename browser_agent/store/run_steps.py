"""Runs read through the ORM: a run's steps in order, the one reader for the commands and
pages that show a run (``show``, the console's run page), and the runs that succeeded
after a time (re-harvesting a skill from newer runs)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.store.models import Run, Step


def steps_of(db: Session, run_id: str) -> Sequence[Step]:
    """The steps of run ``run_id``, by their index."""
    return db.exec(select(Step).where(Step.run_id == run_id).order_by(Step.index)).all()


def run_with_steps(engine: Engine, run_id: str) -> tuple[Run, Sequence[Step]] | None:
    """A run and its steps in order; None when no run has that id."""
    with Session(engine) as db:
        run = db.get(Run, run_id)
        if run is None:
            return None
        return run, steps_of(db, run_id)


def succeeded_after(engine: Engine, moment: datetime) -> Sequence[Run]:
    """The runs that succeeded and started after ``moment``, newest first."""
    with Session(engine) as db:
        return db.exec(
            select(Run)
            .where(Run.status == "succeeded", Run.started_at > moment)
            .order_by(Run.started_at.desc())
        ).all()
