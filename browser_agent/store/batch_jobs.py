"""Each job's result of a batch or a distributed validation, written once under its id."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from browser_agent.store.models import BatchJob


def stored_job(engine: Engine, job_id: str) -> BatchJob | None:
    """The result written for ``job_id``, or None."""
    with Session(engine) as db:
        return db.get(BatchJob, job_id)


def keep_job_once(engine: Engine, row: BatchJob) -> BatchJob | None:
    """Write ``row`` unless a result is there under its id already: None when written,
    else the stored one (which wins, so two attempts of a job report the same thing)."""
    try:
        with Session(engine) as db:
            db.add(row)
            db.commit()
    except IntegrityError:
        stored = stored_job(engine, row.job_id)
        if stored is None:
            raise
        return stored
    return None
