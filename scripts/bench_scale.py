"""Benchmark scaling out: wall time of 50 validations and 50 batch commands against the demo
shop with 300 ms latency per response, on 1, 2 and 4 browser slots in one process and on a
local Dask cluster of 2 worker processes, and the cluster's per-job overhead.

Skills are harvested with the offline planner on a demo shop without latency, copied
until there are ``--jobs`` of them, then replayed against the slow shop (``--url``, as
``validate --url`` does). Batch commands are search-and-sort commands the offline planner
carries out. Everything stays on 127.0.0.1. The cluster's start (processes, browsers) is
not counted: its workers are ready before the clock starts. The cluster has 2 workers
with 2 slots each and is compared with 4 slots in one process.

    .venv/bin/python scripts/bench_scale.py [--jobs 50] [--latency-ms 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from browser_agent.browser.session import launched_browser  # noqa: E402
from browser_agent.cluster.dask_jobs import cluster_client, run_on_cluster  # noqa: E402
from browser_agent.cluster.jobs import (  # noqa: E402
    CommandJob,
    JobResult,
    ValidateJob,
    job_ids,
    run_job,
    validate_job,
)
from browser_agent.cluster.slots import run_on_slots  # noqa: E402
from browser_agent.demo_site import start_demo_site  # noqa: E402
from browser_agent.settings import Settings  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from browser_agent.store.skill_use import current_skills  # noqa: E402
from browser_agent.store.skills import add_version  # noqa: E402
from scripts.bench_validate import COMMANDS, copy_skill  # noqa: E402
from tests.skill_workspaces import harvest_commands, workspace_settings  # noqa: E402

SLOTS = (1, 2, 4)
WORKERS, SLOTS_PER_WORKER = 2, 2
SEARCHES = [
    f"search for {what} and sort by {how}"
    for what in ("sandals", "trail shoes", "hiking boots", "running shoes", "boots")
    for how in ("customer rating", "price low to high", "price high to low", "best seller")
]


def command_jobs(count: int, url: str) -> list[CommandJob]:
    batch = uuid.uuid4().hex[:12]
    ids = job_ids(batch, count)
    return [CommandJob(ids[i], batch, SEARCHES[i % len(SEARCHES)], url) for i in range(count)]


def validate_jobs(names: list[str], url: str) -> list[ValidateJob]:
    batch = uuid.uuid4().hex[:12]
    return [
        ValidateJob(i, batch, n, url)
        for i, n in zip(job_ids(batch, len(names)), names, strict=True)
    ]


def bad(results: dict[str, JobResult], good: str) -> int:
    return sum(result.status != good for result in results.values())


async def prepare(settings: Settings, total: int) -> list[str]:
    """Harvest skills on a quick shop and copy them until there are ``total``."""
    engine = open_store(settings)
    with start_demo_site(port=0) as quick:
        async with launched_browser(settings) as browser:
            await harvest_commands(COMMANDS, settings, browser, quick)
    originals = list(current_skills(engine, "healthy"))
    for number in range(total - len(originals)):
        add_version(engine, copy_skill(originals[number % len(originals)], number, settings))
    return sorted(s.name for s in current_skills(engine, "healthy"))[:total]


def in_process(settings: Settings, jobs: list, runner, slots: int, good: str) -> float:  # noqa: ANN001
    """Wall seconds of the jobs on ``slots`` slots of one browser (its start not counted)."""
    engine = open_store(settings)

    async def timed() -> tuple[float, dict[str, JobResult]]:
        async with launched_browser(settings) as browser:
            started = time.perf_counter()
            done = await run_on_slots(jobs, runner, settings, engine, slots=slots, browser=browser)
            return time.perf_counter() - started, done

    seconds, results = asyncio.run(timed())
    failed = bad(results, good)
    if failed:
        print(f"  ({failed} of {len(jobs)} jobs not {good} at {slots} slots)")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=50, help="Validations and commands each.")
    parser.add_argument("--latency-ms", type=int, default=300, help="Each response's delay.")
    args = parser.parse_args()
    times: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as folder:
        settings = workspace_settings(Path(folder) / "workspace")
        os.environ["BROWSER_AGENT_WORKSPACE"] = str(settings.workspace)  # the workers' too
        os.environ["BROWSER_AGENT_ACTION_TIMEOUT_MS"] = str(int(settings.action_timeout_ms))
        os.environ["BROWSER_AGENT_LLM_MODEL"] = "offline"
        names = asyncio.run(prepare(settings, args.jobs))
        with start_demo_site(port=0, latency_ms=args.latency_ms) as slow:
            kinds = {
                "validations": (lambda: validate_jobs(names, slow.url), validate_job, "healthy"),
                "batch commands": (lambda: command_jobs(args.jobs, slow.url), run_job, "succeeded"),
            }
            for kind, (make, runner, good) in kinds.items():
                for slots in SLOTS:
                    times[kind, f"{slots} slots"] = in_process(
                        settings, make(), runner, slots, good
                    )
                    taken = times[kind, f"{slots} slots"]
                    print(f"{kind}, {slots} slots in one process: {taken:.1f} s", flush=True)
            with cluster_client(WORKERS, None, SLOTS_PER_WORKER) as client:
                for kind, (make, _runner, good) in kinds.items():
                    jobs = make()
                    started = time.perf_counter()
                    results = run_on_cluster(client, jobs)
                    times[kind, "cluster"] = time.perf_counter() - started
                    print(f"{kind}, cluster: {times[kind, 'cluster']:.1f} s", flush=True)
                    failed = bad(results, good)
                    if failed:
                        print(f"  ({failed} of {len(jobs)} jobs not {good} on the cluster)")
    print(
        f"\n{args.jobs} validations and {args.jobs} batch commands, demo shop with "
        f"{args.latency_ms} ms latency, {os.cpu_count()} CPUs (wall seconds):"
    )
    cluster = f"cluster {WORKERS}x{SLOTS_PER_WORKER}"
    print(f"  {'':16}" + "".join(f"{s + ' slots':>10}" for s in map(str, SLOTS)) + f"{cluster:>16}")
    for kind in ("validations", "batch commands"):
        row = "".join(f"{times[kind, f'{s} slots']:>10.1f}" for s in SLOTS)
        print(f"  {kind:16}{row}{times[kind, 'cluster']:>16.1f}")
    for kind in ("validations", "batch commands"):
        one, four, on_cluster = (times[kind, k] for k in ("1 slots", "4 slots", "cluster"))
        overhead = (on_cluster - four) / args.jobs
        print(
            f"  {kind}: 4 slots {one / four:.2f}x faster than 1; cluster per-job overhead "
            f"{overhead * 1000:+.0f} ms ({(on_cluster / four - 1) * 100:+.1f}% against 4 slots "
            "in one process)"
        )


if __name__ == "__main__":
    main()
