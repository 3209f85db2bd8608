"""The options that send jobs to a cluster, shared by ``batch`` and ``validate``."""

from __future__ import annotations

from typing import Annotated

import typer

WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", min=1, help="Start a local Dask cluster of N worker processes and run there."
    ),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Run on the Dask scheduler at tcp://HOST:PORT (its workers need browser-agent, "
        "a browser and the store URL).",
    ),
]


def check_cluster_options(workers: int | None, cluster: str | None) -> None:
    """--workers and --cluster exclude each other; a scheduler address is tcp://HOST:PORT."""
    from browser_agent.errors import UserError
    from browser_agent.sites.ports import checked_port

    if workers and cluster:
        raise UserError("--workers starts a local cluster and --cluster uses another: give one")
    if cluster is not None and not cluster.startswith(("tcp://", "tls://")):
        raise UserError(f"--cluster takes a scheduler address tcp://HOST:PORT, got {cluster!r}")
    if cluster is not None:
        try:
            checked_port(cluster)
        except ValueError as exc:
            raise UserError(f"--cluster {cluster}: {exc}") from None
    if workers or cluster:
        need_dask()


def need_dask() -> None:
    """Say in one line how to install Dask when ``--workers``/``--cluster`` need it."""
    from importlib.util import find_spec

    from browser_agent.errors import UserError

    if find_spec("distributed") is None:
        raise UserError("--workers and --cluster need Dask: pip install 'browser-agent[cluster]'")
