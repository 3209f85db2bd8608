"""``validate --all --workers N`` / ``--cluster``: each skill's replay is a job on a Dask
worker, which loads the skill's current version from the store; the verdicts come back
as the validator's report."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import fields

from browser_agent.cluster.dask_jobs import cluster_client, run_on_cluster
from browser_agent.cluster.jobs import JobResult, ValidateJob, job_ids
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.validate.lock import validation_lock
from browser_agent.validate.validator import ERROR, Checked, Report, chosen_skills

_CHECKED_FIELDS = {f.name for f in fields(Checked)} - {"renewed"}


def as_checked(result: JobResult) -> Checked:
    """The validator's verdict from a job's result (an error when the job never ran)."""
    detail = {k: v for k, v in result.detail.items() if k in _CHECKED_FIELDS}
    if "verdict" not in detail:
        return Checked(result.command, 0, ERROR, error=result.error)
    return Checked(**detail)


def validate_on_cluster(
    settings: Settings,
    names: Sequence[str],
    *,
    all_skills: bool,
    base_url: str | None,
    workers: int | None,
    address: str | None,
    slots: int,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[Checked], None] | None = None,
) -> Report:
    """Replay the chosen skills on the cluster under the workspace's validation lock."""
    engine = open_store(settings)
    with validation_lock(settings):
        skills = chosen_skills(engine, names, all_skills)
        if on_start:
            on_start(len(skills))
        batch_id = uuid.uuid4().hex[:12]
        jobs = [
            ValidateJob(job_id, batch_id, skill.name, base_url)
            for job_id, skill in zip(job_ids(batch_id, len(skills)), skills, strict=True)
        ]
        report = Report(concurrency=slots, base_url=base_url)

        def done(result: JobResult) -> None:
            if on_done:
                on_done(as_checked(result))

        started = time.perf_counter()
        with cluster_client(workers, address, slots) as client:
            results = run_on_cluster(client, jobs, on_done=done)
        report.seconds = time.perf_counter() - started
    report.checked = [as_checked(results[job.job_id]) for job in jobs]
    return report
