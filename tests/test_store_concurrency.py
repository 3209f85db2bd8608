"""Processes sharing one store: counters lose no count, first runs started together on an
empty workspace all create (or find) the tables and keep every run and step.

Each test starts real processes (forked from a fresh server process that has imported
this module once, so they share nothing with this one but the store) and holds them at a
barrier so that they hit the store at the same moment. The
store's URL comes from the ``store_url`` fixture (tests/conftest.py): each test runs on a
SQLite file and on a database of its own on the session's PostgreSQL server.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import traceback
from collections.abc import Callable
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser
from sqlalchemy import func
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store
from browser_agent.store.migrate import current_revision
from browser_agent.store.migrations import HEAD_REVISION
from browser_agent.store.models import Run, Skill, Step

PROCESSES = 4
INCREMENTS = 50
COMMAND = "search for trail shoes and sort by price low to high"
CONTEXT = multiprocessing.get_context("forkserver")
CONTEXT.set_forkserver_preload([__name__])


@pytest.fixture
def shared(tmp_path: Path, store_url: str) -> Settings:
    """Settings for the workspace the processes share: nothing in it yet."""
    return load_settings().with_overrides(workspace=tmp_path / "workspace", database_url=store_url)


def settings_of(workspace: str, url: str) -> Settings:
    return load_settings().with_overrides(workspace=Path(workspace), database_url=url)


def together(worker: Callable[..., Any], *args: Any, processes: int = PROCESSES) -> list[Any]:
    """Run ``worker(*args, barrier)`` in ``processes`` spawned processes, all released at
    once by the barrier; their results, or the first failure with its traceback."""
    barrier = CONTEXT.Barrier(processes, timeout=120)
    results = CONTEXT.Queue()
    started = [
        CONTEXT.Process(target=_reporting, args=(worker, args, barrier, results))
        for _ in range(processes)
    ]
    for process in started:
        process.start()
    answers = [results.get(timeout=900) for _ in started]  # a ceiling, not a target
    for process in started:
        process.join(timeout=60)
    failures = [text for ok, text in answers if not ok]
    assert not failures, f"{len(failures)} of {processes} processes failed:\n{failures[0]}"
    return [value for _ok, value in answers]


def _reporting(worker: Callable[..., Any], args: tuple, barrier: Barrier, results: Any) -> None:
    try:
        results.put((True, worker(*args, barrier)))
    except BaseException:
        results.put((False, traceback.format_exc()))


def count_uses(workspace: str, url: str, skill_id: int, barrier: Barrier) -> int:
    """Count INCREMENTS uses of a skill, every third one failed."""
    from browser_agent.store.health import BROKEN, OK, count_use

    engine = open_store(settings_of(workspace, url))
    barrier.wait()
    for i in range(INCREMENTS):
        count_use(engine, skill_id, OK if i % 3 != 0 else BROKEN, "step 2: gone")
    return INCREMENTS


#: Processes and routed runs per process, each a real run in the process's own Chromium;
#: the full figure (4 processes, 50 runs each) is run with
#: ``ROUTED_PROCESSES=4 ROUTED_RUNS=50 pytest tests/test_store_concurrency.py``.
ROUTED_PROCESSES = int(os.environ.get("ROUTED_PROCESSES", "3"))
ROUTED_RUNS = int(os.environ.get("ROUTED_RUNS", "2"))


def routed_runs(workspace: str, url: str, site: str, barrier: Barrier) -> list[tuple]:
    """ROUTED_RUNS commands the shared skill does alone, in one browser, started at once."""
    from browser_agent.browser.session import launched_browser

    settings = settings_of(workspace, url)
    terms = ("sandals", "road shoes", "trail shoes")

    async def play() -> list[tuple]:
        done = []
        async with launched_browser(settings) as browser:
            barrier.wait()
            for n in range(ROUTED_RUNS):
                command = f"search for {terms[n % 3]} and sort by customer rating"
                result = await run_command(
                    command, OfflinePlanner(), settings, start_url=site, browser=browser
                )
                done.append((result.run_id, result.status, result.llm_calls, result.steps))
        return done

    return asyncio.run(play())


def open_at_once(workspace: str, url: str, barrier: Barrier) -> str | None:
    """Open the (empty) store the moment every process is ready."""
    settings = settings_of(workspace, url)
    barrier.wait()
    return current_revision(open_store(settings))


def first_run(workspace: str, url: str, site: str, barrier: Barrier) -> tuple[str, str, int]:
    """A real run with the offline planner in a Chromium of its own, started at once."""
    settings = settings_of(workspace, url)
    barrier.wait()
    result = asyncio.run(run_command(COMMAND, OfflinePlanner(), settings, start_url=site))
    return result.run_id, result.status, result.steps


def test_counters_lose_no_count_when_processes_update_one_skill(shared: Settings) -> None:
    engine = open_store(shared)
    with Session(engine) as db:
        skill = Skill(name="search_sort", module_path="m.py", shape="search for {}")
        db.add(skill)
        db.commit()
        skill_id = skill.id

    together(count_uses, str(shared.workspace), shared.db_url, skill_id)

    with Session(engine) as db:
        row = db.get(Skill, skill_id)
    assert row is not None
    failed = PROCESSES * len(range(0, INCREMENTS, 3))
    assert (row.uses, row.successes, row.failures) == (
        PROCESSES * INCREMENTS,
        PROCESSES * INCREMENTS - failed,
        failed,
    )
    assert row.last_error == "step 2: gone"


def test_processes_opening_an_empty_store_at_once_all_get_its_tables(shared: Settings) -> None:
    revisions = together(open_at_once, str(shared.workspace), shared.db_url, processes=8)
    assert revisions == [HEAD_REVISION] * 8


def test_first_runs_started_together_on_an_empty_workspace_all_succeed_and_are_kept(
    shared: Settings, demo: DemoSite
) -> None:
    done = together(first_run, str(shared.workspace), shared.db_url, f"{demo.url}/")

    assert [status for _id, status, _steps in done] == ["succeeded"] * PROCESSES
    engine = open_store(shared)
    with Session(engine) as db:
        runs = {run.id: run for run in db.exec(select(Run)).all()}
        kept = dict(
            db.exec(select(Step.run_id, func.count()).group_by(Step.run_id)).all()  # type: ignore[arg-type]
        )
    assert sorted(runs) == sorted(run_id for run_id, _status, _steps in done)
    for run_id, _status, steps in done:
        run = runs[run_id]
        assert steps > 0 and (run.status, run.steps, kept[run_id]) == ("succeeded", steps, steps)


async def test_each_step_is_committed_as_it_happens(
    shared: Settings, browser: Browser, demo: DemoSite
) -> None:
    """Another connection sees every step, and the run's step count, the moment the step
    is done: no transaction stays open across the browser work of a run."""
    seen: list[tuple[int, int, int]] = []
    observer = open_store(shared)  # an engine of its own: other connections

    def look(step: Step) -> None:
        with Session(observer) as db:
            run = db.get(Run, step.run_id)
            stored = db.exec(select(func.count()).where(Step.run_id == step.run_id)).one()
        assert run is not None
        seen.append((step.index, stored, run.steps))

    result = await run_command(
        COMMAND, OfflinePlanner(), shared, start_url=f"{demo.url}/", browser=browser, on_step=look
    )

    assert result.status == "succeeded" and result.steps > 1
    assert seen == [(i, i, i) for i in range(1, result.steps + 1)]


async def test_routed_runs_from_several_processes_lose_no_run_step_or_count(
    shared: Settings, browser: Browser, demo: DemoSite
) -> None:
    from browser_agent.harvest.harvester import harvest
    from browser_agent.store.skill_use import current_skills

    engine = open_store(shared)
    learnt = await run_command(
        COMMAND, OfflinePlanner(), shared, start_url=f"{demo.url}/", browser=browser, engine=engine
    )
    (made,) = await harvest([Path(learnt.log_path)], shared, engine, browser=browser)
    assert made.verified, made.verify_error

    per_process = together(
        routed_runs,
        str(shared.workspace),
        shared.db_url,
        f"{demo.url}/",
        processes=ROUTED_PROCESSES,
    )

    done = [run for runs in per_process for run in runs]
    assert len(done) == ROUTED_PROCESSES * ROUTED_RUNS
    assert {status for _id, status, _calls, _steps in done} == {"succeeded"}
    # through the skill alone, until a step times out on a loaded machine: the skill is
    # then marked stale and the planner does the rest of the runs (all counted below)
    assert any(calls == 0 for _id, _status, calls, _steps in done)
    with Session(engine) as db:
        kept = dict(db.exec(select(Step.run_id, func.count()).group_by(Step.run_id)).all())  # type: ignore[arg-type]
        runs = {run.id: run for run in db.exec(select(Run)).all()}
        skill_steps = db.exec(select(Step).where(Step.tool == made.skill.name)).all()  # type: ignore[union-attr]
    for run_id, _status, _calls, steps in done:  # every run and every step is there
        run = runs[run_id]
        assert (run.status, run.steps, kept[run_id]) == ("succeeded", steps, steps)
    counted = [s for s in skill_steps if s.error != "skill_not_applicable"]
    (skill,) = current_skills(engine)
    assert (skill.uses, skill.successes, skill.failures) == (
        len(counted),
        sum(s.ok for s in counted),
        sum(not s.ok for s in counted),
    )
    assert counted  # the skill was used, and each use counted once
