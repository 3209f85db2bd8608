"""``browser-agent batch FILE``: many commands at once, on browser slots in this process or
on a Dask cluster; one result per job, written once in the store under its job id."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from browser_agent.cli.cluster_options import ClusterOption, WorkersOption, check_cluster_options
from browser_agent.cli.json_output import print_json
from browser_agent.cli.terminal import console

if TYPE_CHECKING:
    from browser_agent.cluster.batch_file import BatchLine
    from browser_agent.cluster.jobs import CommandJob, JobResult
    from browser_agent.settings import Settings

# Columns from which the batch's table shows each job's run id.
WIDE_TERMINAL = 110


def batch_command(
    file: Annotated[
        Path,
        typer.Argument(
            help='One command per line, or JSON lines {"command", "url", "secrets": [NAME]}.',
            dir_okay=False,
        ),
    ],
    url: Annotated[
        str | None,
        typer.Option(help="Start page of every command whose line names none."),
    ] = None,
    slots: Annotated[
        int, typer.Option(min=1, help="Commands at once per process, each in its own context.")
    ] = 4,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    model: Annotated[
        str | None, typer.Option(help="Model at the endpoint; 'offline' for the built-in planner.")
    ] = None,
    max_steps: Annotated[
        int, typer.Option(min=1, help="Stop each run after this many tool calls.")
    ] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Carry out every command of FILE; each is a run of its own, stored as usual.

    Exit code 0 when every command succeeded, 1 otherwise, 2 when the batch could not run.
    """
    from browser_agent.cli.progress import counting
    from browser_agent.cluster.batch_file import read_batch
    from browser_agent.settings import load_settings

    check_cluster_options(workers, cluster)
    lines = read_batch(file)  # a BatchFileError is a UserError: one line, exit code 2
    settings = load_settings()
    distributed = bool(workers or cluster)
    if url is not None:
        start = start_url_option(url, settings)
        lines = [line if line.url else replace(line, url=start) for line in lines]
    jobs = command_jobs(lines, settings, file, model, max_steps, check_secrets=not distributed)
    progress = counting("batch", Console(stderr=True), as_json)
    task = progress.add_task("", total=len(jobs))

    def done(result: JobResult) -> None:
        progress.update(task, advance=1, description=result.command[:40])

    started = time.perf_counter()
    with progress:
        results = run_batch(jobs, settings, slots, workers, cluster, done)
    seconds = time.perf_counter() - started
    ordered = [results[job.job_id] for job in jobs]
    if as_json:
        print_json(batch_document(jobs[0].batch_id, ordered, seconds))
    else:
        _print(ordered, seconds)
    raise typer.Exit(0 if all(r.status == "succeeded" for r in ordered) else 1)


def start_url_option(url: str, settings: Settings) -> str:
    """``--url`` as a start page, or a mistake of the option said in one line."""
    from browser_agent.errors import ActionError, UserError
    from browser_agent.sites.policy import normalize_url

    try:
        return normalize_url(url, settings)
    except ActionError as exc:
        raise UserError(f"--url: {exc}") from None


def command_jobs(
    lines: list[BatchLine],
    settings: Settings,
    file: Path,
    model: str | None,
    max_steps: int,
    *,
    check_secrets: bool,
) -> list[CommandJob]:
    """A job per line, under a new batch id; a URL the settings refuse, or (in-process) a
    secret not configured, is a mistake of the line that names it."""
    from browser_agent.cluster.jobs import CommandJob, job_ids, named_secrets
    from browser_agent.errors import ActionError, UserError
    from browser_agent.sites.policy import normalize_url

    batch_id = uuid.uuid4().hex[:12]
    jobs = []
    for line, job_id in zip(lines, job_ids(batch_id, len(lines)), strict=True):
        url = line.url
        if url is not None:
            try:
                url = normalize_url(url, settings)
            except ActionError as exc:
                raise UserError(f"{file} line {line.line}: {exc}") from None
        if check_secrets:
            missing = named_secrets(line.secrets)[1]
            if missing:
                raise UserError(
                    f"{file} line {line.line}: the secret {missing[0]} is not configured "
                    f"(set BROWSER_AGENT_SECRET_{missing[0].upper()})"
                )
        jobs.append(CommandJob(job_id, batch_id, line.command, url, line.secrets, model, max_steps))
    return jobs


def run_batch(
    jobs: list[CommandJob],
    settings: Settings,
    slots: int,
    workers: int | None,
    cluster: str | None,
    on_done: Callable[[JobResult], None],
) -> dict[str, JobResult]:
    """The jobs' results by job id, from this process's slots or from the cluster."""
    import asyncio

    from browser_agent.cluster.jobs import run_job
    from browser_agent.cluster.slots import run_on_slots
    from browser_agent.store.db import open_store

    if workers or cluster:
        from browser_agent.cluster.dask_jobs import cluster_client, run_on_cluster

        with cluster_client(workers, cluster, slots) as client:
            return run_on_cluster(client, jobs, on_done=on_done)
    engine = open_store(settings)
    return asyncio.run(run_on_slots(jobs, run_job, settings, engine, slots=slots, on_done=on_done))


def batch_document(batch_id: str, results: list[JobResult], seconds: float) -> dict:
    """What ``--json`` prints: the batch, each job's result in the file's order, counts."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    return {
        "batch_id": batch_id,
        "seconds": round(seconds, 2),
        "counts": counts,
        "jobs": [result.as_dict() for result in results],
    }


def _print(results: list[JobResult], seconds: float) -> None:
    from rich import box
    from rich.table import Column, Table

    # on a narrow terminal the run id gives way (browser-agent runs and --json have it), so
    # the command stays readable
    wide = console().width >= WIDE_TERMINAL
    table = Table(
        Column("job", no_wrap=True),
        Column("status", no_wrap=True),
        *([Column("run", no_wrap=True)] if wide else []),
        Column("LLM\ncalls", no_wrap=True, justify="right"),
        Column("seconds", no_wrap=True, justify="right"),
        Column("command", ratio=1),
        box=box.SIMPLE_HEAD,
    )
    for result in results:
        colour = {"succeeded": "green", "unverified": "yellow"}.get(result.status, "red")
        table.add_row(
            result.job_id,
            f"[{colour}]{result.status}[/]",
            *([result.run_id or ""] if wide else []),
            str(result.llm_calls),
            f"{result.seconds:.1f}",
            escape(result.command[:60]),
        )
    console().print(table)
    for result in results:
        if result.error and result.status != "succeeded":
            console().print(f"[bold]{result.job_id}[/]: {escape(result.error[:300])}")
    ok = sum(r.status == "succeeded" for r in results)
    console().print(f"{ok} of {len(results)} commands succeeded in {seconds:.1f} s.")
