"""Jobs on a Dask cluster: a LocalCluster of worker processes (``--workers N``) or a
running scheduler (``--cluster tcp://HOST:PORT``) whose workers each keep one browser.

A job whose worker died is sent to another worker by the scheduler (up to
``distributed.scheduler.allowed-failures`` times), and one whose browser went away is
run again (``retries``); a job that failed for its own reasons returns its result and is
never run again. The results are written once in the store, keyed by job id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from distributed import Client, LocalCluster, as_completed, get_worker

from browser_agent.cluster.jobs import (
    ERROR,
    BrowserLost,
    CommandJob,
    JobResult,
    ValidateJob,
    run_job,
    validate_job,
)
from browser_agent.cluster.worker import PLUGIN_NAME, BrowserPlugin
from browser_agent.errors import UserError

#: How often a job whose browser went away is run again.
RETRIES = 2
#: How long to wait for the scheduler and its first worker.
CONNECT_TIMEOUT_S = 30


class ClusterError(UserError):
    """The cluster could not be reached or has no workers; the message says which."""


@contextmanager
def cluster_client(workers: int | None, address: str | None, slots: int) -> Iterator[Client]:
    """A client of a new local cluster of ``workers`` processes with ``slots`` threads each,
    or of the scheduler at ``address``; every worker gets the browser plugin."""
    if address:
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        cluster = None
    else:
        cluster = LocalCluster(
            n_workers=workers or 1,
            threads_per_worker=slots,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    try:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except TimeoutError:
            raise ClusterError(f"the Dask scheduler at {address} has no workers") from None
        client.register_plugin(BrowserPlugin(), name=PLUGIN_NAME)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def command_on_worker(job: CommandJob) -> JobResult:
    """A batch command, run by a worker on its browser."""
    return _on_worker(job, run_job)


def validation_on_worker(job: ValidateJob) -> JobResult:
    """A skill's replay, run by a worker on its browser."""
    return _on_worker(job, validate_job)


def _on_worker(job: Any, runner: Any) -> JobResult:
    """``runner(job, ...)`` on the worker's browser. Only a lost browser raises (so the
    job runs again); any other error is the job's own result, never retried."""
    plugin: BrowserPlugin = get_worker().plugins[PLUGIN_NAME]
    try:
        return plugin.run(lambda browser, settings, engine: runner(job, browser, settings, engine))
    except BrowserLost:
        raise
    except Exception as exc:
        return JobResult(job.job_id, job.label, ERROR, error=f"{type(exc).__name__}: {exc}")


def run_on_cluster(
    client: Client,
    jobs: Sequence[CommandJob | ValidateJob],
    *,
    on_done: Callable[[JobResult], None] | None = None,
) -> dict[str, JobResult]:
    """Submit every job (keyed by its job id) and collect the results as they come."""
    futures = [
        client.submit(
            validation_on_worker if isinstance(job, ValidateJob) else command_on_worker,
            job,
            key=job.job_id,
            retries=RETRIES,
            pure=False,
        )
        for job in jobs
    ]
    names = {job.job_id: job.label for job in jobs}
    results: dict[str, JobResult] = {}
    for future, value in as_completed(futures, with_results=True, raise_errors=False):
        result = value if isinstance(value, JobResult) else _failed(future, names, value)
        results.setdefault(result.job_id, result)
        if on_done:
            on_done(result)
    return results


def _failed(future: Any, names: dict[str, str], value: Any) -> JobResult:
    """A job the cluster gave up on: its workers kept dying, or its browser kept failing.
    ``value`` is the ``(type, exception, traceback)`` of the error."""
    job_id = str(future.key)
    error = value[1] if isinstance(value, tuple) else value
    return JobResult(job_id, names.get(job_id, ""), ERROR, error=f"{type(error).__name__}: {error}")
