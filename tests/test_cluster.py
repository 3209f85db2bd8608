"""Batches and validation on Dask: a local cluster of two worker processes, and a real
``dask scheduler`` with two ``dask worker`` processes, one of them killed mid-batch.

Workers share the test's workspace (its SQLite store) through BROWSER_AGENT_WORKSPACE and
drive the demo shop with the offline planner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite, start_demo_site
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import BatchJob, Run
from tests.skill_workspaces import OPEN_PRODUCT, SEARCH, harvest_commands, workspace_settings

pytest.importorskip("distributed")

BIN = Path(sys.executable).parent
SEARCHES = [
    f"search for {what} and sort by {how}"
    for what, how in [
        ("sandals", "customer rating"),
        ("trail shoes", "price low to high"),
        ("hiking boots", "best seller"),
        ("running shoes", "price high to low"),
        ("sandals", "best seller"),
        ("trail shoes", "customer rating"),
    ]
]


def environment(settings: Settings, **more: str) -> dict[str, str]:
    """The variables every process of a test gets: the workspace, the offline planner."""
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "4000",
        "COLUMNS": "200",
        **more,
    }
    env.pop("FORCE_COLOR", None)
    return env


def batch_file(folder: Path, url: str, commands: list[str]) -> Path:
    file = folder / "batch.jsonl"
    file.write_text("".join(json.dumps({"command": c, "url": url}) + "\n" for c in commands))
    return file


def agent(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "browser-agent"), *args],
        capture_output=True,
        text=True,
        env=environment(settings),
        timeout=240,
    )


def assert_each_job_once(settings: Settings, jobs: list[dict]) -> None:
    """Every job has one result row and one succeeded run, and no run counts twice."""
    with Session(open_store(settings)) as db:
        stored = db.exec(select(BatchJob)).all()
        commands = {job["command"] for job in jobs}
        runs = db.exec(select(Run).where(Run.status == "succeeded")).all()
        succeeded = [run for run in runs if run.command in commands]
    ids = [job["job_id"] for job in jobs]
    assert sorted(row.job_id for row in stored) == sorted(ids)
    assert sorted(row.run_id for row in stored) == sorted(job["run_id"] for job in jobs)
    assert sorted(run.id for run in succeeded) == sorted(job["run_id"] for job in jobs)
    assert sorted(run.command for run in succeeded) == sorted(job["command"] for job in jobs)


@pytest_asyncio.fixture(loop_scope="session")
async def with_skills(tmp_path: Path, browser: Browser, demo: DemoSite) -> Settings:
    """A workspace with two skills harvested (and verified) on the demo shop."""
    settings = workspace_settings(tmp_path / "workspace")
    await harvest_commands([SEARCH, OPEN_PRODUCT], settings, browser, demo)
    return settings


def test_a_local_cluster_runs_a_batch_and_a_validation(
    with_skills: Settings, demo: DemoSite, tmp_path: Path
) -> None:
    commands = SEARCHES[2:5]  # not the harvested command: its run is in the store
    done = agent(
        with_skills, "batch", str(batch_file(tmp_path, demo.url, commands)), "--workers", "2",
        "--slots", "1", "--json",
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    jobs = json.loads(done.stdout)["jobs"]
    assert [job["status"] for job in jobs] == ["succeeded"] * 3
    assert {job["worker"].split(":")[-1] for job in jobs} != {str(os.getpid())}
    assert_each_job_once(with_skills, jobs)

    validated = agent(with_skills, "validate", "--all", "--workers", "2", "--json")

    assert validated.returncode == 0, validated.stderr
    report = json.loads(validated.stdout)
    assert report["counts"] == {"healthy": 2}
    with Session(open_store(with_skills)) as db:
        rows = db.exec(select(BatchJob).where(BatchJob.kind == "validate")).all()
    assert sorted(row.command for row in rows) == sorted(s["name"] for s in report["skills"])


def test_a_worker_keeps_its_browser_and_no_profiler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser plugin stops Dask's statistical profiler on each worker: it would sample
    threads that only wait for the browser, a hundred times a second, on every job."""
    from distributed import Client, LocalCluster

    from browser_agent.cluster.worker import PLUGIN_NAME, BrowserPlugin

    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(tmp_path / "workspace"))
    with (
        LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        before = client.run(lambda dask_worker: sorted(dask_worker.periodic_callbacks))
        client.register_plugin(BrowserPlugin(), name=PLUGIN_NAME)
        after = client.run(lambda dask_worker: sorted(dask_worker.periodic_callbacks))
        alive = client.run(
            lambda dask_worker: dask_worker.plugins[PLUGIN_NAME]._browser.is_connected()
        )

    assert all("profile" in names for names in before.values())  # Dask's default
    assert all("profile" not in names and "profile-cycle" not in names for names in after.values())
    assert list(alive.values()) == [True]


@pytest.fixture
def slow_demo() -> Iterator[DemoSite]:
    """A demo shop of its own whose every answer takes a while, so jobs overlap a kill."""
    with start_demo_site(port=0, latency_ms=150) as site:
        yield site


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def wait_for(check, what: str, timeout_s: float = 60):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def test_a_worker_killed_mid_batch_loses_no_job_and_counts_none_twice(
    tmp_path: Path, slow_demo: DemoSite
) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    open_store(settings)
    env = environment(settings)
    address_file = tmp_path / "scheduler.json"
    dask = str(BIN / "dask")
    processes = [
        start(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(address_file)],
            env, tmp_path / "scheduler.log",
        )
    ]  # fmt: skip
    try:
        wait_for(address_file.exists, "the scheduler")
        address = wait_for(
            lambda: json.loads(address_file.read_text() or "{}").get("address"), "its address"
        )
        for name in ("w1", "w2"):
            processes.append(
                start(
                    [dask, "worker", "--scheduler-file", str(address_file), "--nthreads", "1",
                     "--no-nanny", "--host", "127.0.0.1", "--no-dashboard", "--name", name],
                    env, tmp_path / f"{name}.log",
                )
            )  # fmt: skip
        victim = processes[1]
        file = batch_file(tmp_path, slow_demo.url, SEARCHES)
        with subprocess.Popen(
            [str(BIN / "browser-agent"), "batch", str(file), "--cluster", address, "--json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ) as running:  # fmt: skip

            def victim_running() -> bool:
                with Session(open_store(settings)) as db:
                    mine = select(Run).where(Run.pid == victim.pid, Run.status == "running")
                    return db.exec(mine).first() is not None

            wait_for(victim_running, "a job on the first worker", timeout_s=120)
            victim.send_signal(signal.SIGKILL)
            out, err = running.communicate(timeout=240)

        assert running.returncode == 0, err
        jobs = json.loads(out)["jobs"]
        assert [job["command"] for job in jobs] == SEARCHES
        assert [job["status"] for job in jobs] == ["succeeded"] * len(SEARCHES)
        assert_each_job_once(settings, jobs)
        with Session(open_store(settings)) as db:  # the killed run is not any job's
            cut = db.exec(select(Run).where(Run.pid == victim.pid, Run.status != "succeeded"))
            assert [run.id for run in cut.all()] and not {r.id for r in cut} & {
                job["run_id"] for job in jobs
            }
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
