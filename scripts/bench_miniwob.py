"""Skills on pages nobody here wrote: MiniWoB++ tasks, before and after harvesting.

Per task: the first instance (seeds 0-4) the offline planner solves is harvested; when it
solves none, a scripted teacher (scripts/miniwob_teacher.py) shows one correct solution on
seed 0 as a person would, clicking and typing with Playwright while the recorder
(browser_agent.record) writes the demonstration as a run, and that run is harvested
instead, marked "shown". (--teach-as-llm plays the teacher through the test LLM server
instead, marked "taught".) Then fresh seeds run twice each: planner only (skills off) and with
skills. Success is the page's own raw reward of 1.0, never the agent's verdict. All
traffic stays on 127.0.0.1 (MiniWoB pages, the test LLM server).

    .venv/bin/python scripts/bench_miniwob.py [--tasks a,b] [--fresh 20] [--check-tasks]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from miniwob_teacher import TEACHERS, show, teacher_policy  # noqa: E402

from browser_agent.browser.session import launched_browser  # noqa: E402
from browser_agent.harvest.harvester import harvest  # noqa: E402
from browser_agent.llm.offline import OfflinePlanner  # noqa: E402
from browser_agent.llm.openai_client import OpenAIClient  # noqa: E402
from browser_agent.planner.agent import RunResult, run_command  # noqa: E402
from browser_agent.record.save import save_recording  # noqa: E402
from browser_agent.record.session import record_session  # noqa: E402
from browser_agent.settings import Settings, load_settings  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from browser_agent.testing.miniwob_site import (  # noqa: E402
    MiniWobSite,
    read_instruction,
    start_miniwob_site,
)
from browser_agent.testing.openai_server import start_test_llm_server  # noqa: E402

DEV_TASKS = [
    "click-button-sequence",
    "click-checkboxes-large",
    "click-checkboxes-soft",
    "click-dialog-2",
    "click-menu",
    "click-tab-2-easy",
    "click-test-2",
    "click-widget",
    "enter-text-2",
    "enter-text-dynamic",
    "enter-time",
    "focus-text-2",
    "form-sequence",
    "login-user-popup",
    "multi-layouts",
    "multi-orderings",
    "navigate-tree",
    "read-table",
    "social-media",
    "choose-date-easy",
]
# Tasks never developed against: they check that what works is general.
CHECK_TASKS = [
    "click-button",
    "click-link",
    "click-checkboxes",
    "click-option",
    "click-tab",
    "enter-text",
    "enter-password",
    "focus-text",
    "login-user",
    "click-dialog",
]
LEARN_SEEDS = range(5)
FRESH_SEED_START = 1000


@dataclass
class Episode:
    """One run on one seeded instance."""

    solved: bool
    routed: bool
    llm_calls: int
    seconds: float
    run: RunResult


@dataclass
class TaskReport:
    """What one task gave: how its skill was learnt and the fresh instances both ways."""

    task: str
    learnt: str = "none"  # planner seed N, shown (a recorded demonstration), taught, or none
    skill: str = ""
    complete: bool = False
    planner: list[Episode] | None = None
    skills: list[Episode] | None = None


async def episode(
    site: MiniWobSite, task: str, seed: int, llm: OpenAIClient, settings: Settings, **run
) -> Episode:
    """Run the task's instance ``seed`` once; solved means the page's raw reward is 1.0."""
    name = uuid.uuid4().hex[:12]
    url = site.task_url(task, seed, name)
    command = await read_instruction(run["browser"], url)
    result = await run_command(command, llm, settings, start_url=url, max_steps=25, **run)
    reward = None
    for _ in range(20):  # the page posts its reward as the episode ends
        reward = site.reward(name)
        if reward is not None:
            break
        await asyncio.sleep(0.05)
    routed = result.llm_calls == 0 and result.status == "succeeded"
    solved = reward is not None and reward.raw == 1.0
    return Episode(solved, routed, result.llm_calls, result.seconds, result)


async def learn(site: MiniWobSite, task: str, server, llm, settings, engine, browser) -> TaskReport:  # type: ignore[no-untyped-def]
    """Harvest the first solved instance (planner seeds, else the teacher's seed 0)."""
    report = TaskReport(task)
    planner_only = settings.with_overrides(use_skills=False)
    solved = None
    for seed in LEARN_SEEDS:
        got = await episode(site, task, seed, llm, planner_only, browser=browser, engine=engine)
        if got.solved:
            solved, report.learnt = got, f"planner seed {seed}"
            break
    source = Path(solved.run.log_path) if solved else None
    if solved is None and task in TEACHERS and not TEACH_AS_LLM:
        source = await demonstrate(site, task, settings, engine, browser)
        if source is not None:
            report.learnt = "shown (seed 0)"
    elif solved is None and task in TEACHERS:
        server.policy = teacher_policy(task)
        try:
            got = await episode(site, task, 0, llm, planner_only, browser=browser, engine=engine)
        finally:
            server.policy = OfflinePlanner()
        if got.solved:
            solved, report.learnt = got, "taught (seed 0)"
            source = Path(got.run.log_path)
    if source is None:
        return report
    made = await harvest([source], settings, engine, browser=browser)
    if made and made[0].skill is not None:
        skill = made[0].skill
        report.skill = f"{skill.name} ({skill.status})"
        report.complete = skill.routable  # healthy, or waiting for a secret the command gives
    elif made:
        report.skill = f"none: {made[0].error}"
    return report


async def demonstrate(site, task, settings, engine, browser) -> Path | None:  # type: ignore[no-untyped-def]
    """The teacher shows seed 0 as a person, recorded; the saved run's log when the page
    rewarded it (None when it did not)."""
    name = uuid.uuid4().hex[:12]
    url = site.task_url(task, 0, name)
    command = await read_instruction(browser, url)
    context = await browser.new_context()
    try:
        page = await context.new_page()
        async with record_session(context) as recording:
            await page.goto(url)
            await show(task, page, command)
            for _ in range(20):  # the page posts its reward as the episode ends
                if site.reward(name) is not None:
                    break
                await asyncio.sleep(0.05)
    finally:
        await context.close()
    reward = site.reward(name)
    if reward is None or reward.raw != 1.0:
        return None
    return Path(save_recording(recording, command, settings, engine).log_path)


TEACH_AS_LLM = False


async def main(tasks: list[str], fresh: int, latency: float) -> None:
    workspace = Path(tempfile.mkdtemp(prefix="bench-miniwob-"))
    settings = load_settings().with_overrides(workspace=workspace)
    engine = open_store(settings)
    reports: list[TaskReport] = []
    print(f"workspace {workspace}; {len(tasks)} tasks, {fresh} fresh instances each")
    with start_miniwob_site() as site, start_test_llm_server(OfflinePlanner()) as server:
        server.latency_s = latency
        llm = OpenAIClient("offline-via-http", base_url=server.base_url)
        async with launched_browser(settings) as browser:
            print(HEADER)
            for task in tasks:
                started = time.perf_counter()
                report = await learn(site, task, server, llm, settings, engine, browser)
                report.planner, report.skills = [], []
                for n in range(fresh):
                    seed = FRESH_SEED_START + n
                    common = {"browser": browser, "engine": engine}
                    off = settings.with_overrides(use_skills=False)
                    report.planner.append(await episode(site, task, seed, llm, off, **common))
                    report.skills.append(await episode(site, task, seed, llm, settings, **common))
                reports.append(report)
                print_row(report, time.perf_counter() - started)
    print_totals(reports)


HEADER = (
    f"{'task':<24} {'learnt from':<16} {'skill':<8} | {'planner':>7} {'calls':>5} {'s':>5} |"
    f" {'skills':>6} {'routed':>6} {'calls':>5} {'s':>5}"
)


def print_row(report: TaskReport, seconds: float) -> None:
    planner, skills = report.planner or [], report.skills or []
    n = max(len(planner), 1)
    kind = "complete" if report.complete else "none"
    if report.skill and not report.skill.startswith("none") and not report.complete:
        kind = "partial"
    print(
        f"{report.task:<24} {report.learnt:<16} {kind:<8} |"
        f" {sum(e.solved for e in planner):>3}/{n:<3} {mean(planner, 'llm_calls'):>5.1f}"
        f" {mean(planner, 'seconds'):>5.1f} |"
        f" {sum(e.solved for e in skills):>2}/{n:<3} {sum(e.routed for e in skills):>2}/{n:<3}"
        f" {mean(skills, 'llm_calls'):>5.1f} {mean(skills, 'seconds'):>5.1f}"
        f"   [{report.skill or 'no skill'}; {seconds:.0f} s]",
        flush=True,
    )


def mean(episodes: list[Episode], field: str) -> float:
    return sum(getattr(e, field) for e in episodes) / len(episodes) if episodes else 0.0


def print_totals(reports: list[TaskReport]) -> None:
    def tally(chosen: list[TaskReport]) -> str:
        planner = [e for r in chosen for e in r.planner or []]
        skills = [e for r in chosen for e in r.skills or []]
        if not planner:
            return "no instances"
        calls_before = sum(e.llm_calls for e in planner)
        calls_after = sum(e.llm_calls for e in skills)
        cut = (1 - calls_after / calls_before) * 100 if calls_before else 0.0
        solved_with = sum(e.solved for e in skills)
        routed = sum(e.routed for e in skills)
        return (
            f"planner only {sum(e.solved for e in planner)}/{len(planner)} solved,"
            f" {calls_before / len(planner):.2f} LLM calls each; with skills"
            f" {solved_with}/{len(skills)} solved ({solved_with / len(skills):.0%}),"
            f" routed with 0 LLM calls {routed}/{len(skills)} ({routed / len(skills):.0%}),"
            f" {calls_after / len(skills):.2f} LLM calls each (LLM calls {-cut:+.0f}%)"
        )

    learnt = [r for r in reports if r.learnt != "none"]
    taught = [r.task for r in reports if r.learnt.startswith(("taught", "shown"))]
    complete = [r for r in reports if r.complete]
    print()
    print(
        f"tasks: {len(reports)}; solved by the planner on seeds 0-4: "
        f"{len(learnt) - len(taught)}; taught by the scripted teacher"
        f" ({'as an LLM' if TEACH_AS_LLM else 'shown as a person, recorded'}): {len(taught)}"
        f"{' (' + ', '.join(taught) + ')' if taught else ''}"
    )
    print(f"tasks with a complete harvested skill ({len(complete)}): {tally(complete)}")
    print(f"all tasks ({len(reports)}): {tally(reports)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", help="comma-separated task names (default: the dev set)")
    parser.add_argument("--check-tasks", action="store_true", help="the held-out check set")
    parser.add_argument("--fresh", type=int, default=20, help="fresh instances per task")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per model call")
    parser.add_argument(
        "--teach-as-llm", action="store_true", help="the teacher plays a model, not a person"
    )
    args = parser.parse_args()
    TEACH_AS_LLM = args.teach_as_llm
    chosen = (
        args.tasks.split(",") if args.tasks else (CHECK_TASKS if args.check_tasks else DEV_TASKS)
    )
    asyncio.run(main(chosen, args.fresh, args.latency))
