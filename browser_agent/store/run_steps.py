"""A run's steps in order, through the ORM: the one reader for the commands and pages that
show a run (``show``, the console's run page)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, select

from browser_agent.store.models import Step


def steps_of(db: Session, run_id: str) -> Sequence[Step]:
    """The steps of run ``run_id``, by their index."""
    return db.exec(select(Step).where(Step.run_id == run_id).order_by(Step.index)).all()
