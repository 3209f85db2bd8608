"""Replays kept as Validation rows: each replay once (a distributed job's under its id),
and the latest that judged a skill."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from browser_agent.store.models import Validation


def keep_validation(engine: Engine, row: Validation) -> bool:
    """Store the replay's row; False when its job's replay is kept already (an earlier
    attempt of the job, whose worker died after writing it). Any other conflict raises."""
    try:
        with Session(engine) as db:
            db.add(row)
            db.commit()
    except IntegrityError:
        if row.job_id is None or not _job_kept(engine, row.job_id):
            raise
        return False
    return True


def _job_kept(engine: Engine, job_id: str) -> bool:
    """True when a replay of the job ``job_id`` is stored."""
    with Session(engine) as db:
        return db.exec(select(Validation.id).where(Validation.job_id == job_id)).first() is not None


def replays_of(engine: Engine, name: str, limit: int) -> Sequence[Validation]:
    """The latest ``limit`` replays that judged the skill ``name`` (any version), newest
    first."""
    with Session(engine) as db:
        query = (
            select(Validation)
            .where(Validation.skill_name == name)
            .order_by(col(Validation.checked_at).desc(), col(Validation.id).desc())
            .limit(limit)
        )
        return db.exec(query).all()
