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

from browser_agent.cli_group import UserError
from browser_agent.cluster.jobs import (
    ERROR,
    CommandJob,
    JobResult,
    ValidateJob,
    run_job,
    validate_job,
)
from browser_agent.cluster.worker import PLUGIN_NAME, BrowserPlugin

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
    plugin: BrowserPlugin = get_worker().plugins[PLUGIN_NAME]
    return plugin.run(lambda browser, settings, engine: run_job(job, browser, settings, engine))


def validation_on_worker(job: ValidateJob) -> JobResult:
    """A skill's replay, run by a worker on its browser."""
    plugin: BrowserPlugin = get_worker().plugins[PLUGIN_NAME]
    return plugin.run(
        lambda browser, settings, engine: validate_job(job, browser, settings, engine)
    )


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
    names = {job.job_id: getattr(job, "command", None) or getattr(job, "skill", "") for job in jobs}
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
