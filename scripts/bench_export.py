"""Exported skills on real web applications (scripts/apps/): each task learnt once by the
offline planner and harvested, its skill exported as a plain Playwright script, and the
script run in a fresh Python process on fresh values, judged by the app's own check.

Per task it prints how the first instance went, whether the skill exported (or the step
it refused), and how many fresh runs of the script the app's check passed, with their
seconds. The script starts from the admin's login kept in a storage state
(``--storage-state``); tasks that start logged out or name secrets are left out.

    .venv/bin/python scripts/bench_export.py [--apps trac] [--fresh 5] [--tasks a,b]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from browser_agent.browser.chromium import find_chromium  # noqa: E402
from browser_agent.browser.session import launched_browser  # noqa: E402
from browser_agent.errors import UserError  # noqa: E402
from browser_agent.harvest.harvester import harvest  # noqa: E402
from browser_agent.llm.offline import OfflinePlanner  # noqa: E402
from browser_agent.planner.agent import run_command  # noqa: E402
from browser_agent.planner.router import route  # noqa: E402
from browser_agent.plans.export import exported_script  # noqa: E402
from browser_agent.settings import Settings, load_settings  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from browser_agent.store.skill_use import current_skills  # noqa: E402
from scripts.apps import Running, Task, load  # noqa: E402


async def learn(task: Task, app: Running, settings: Settings, rng: random.Random) -> str:
    """Solve the first instance with the offline planner and harvest it: the skill's name,
    or why there is none."""
    engine = open_store(settings)
    values = task.generate(rng, app)
    async with launched_browser(settings) as browser:
        run = await run_command(
            task.command(values), OfflinePlanner(), settings,
            start_url=app.url + task.start, browser=browser, engine=engine,
        )  # fmt: skip
        if not task.check(app, values, run.final_url):
            return f"! the planner did not do it ({run.status})"
        (made,) = await harvest([Path(run.log_path)], settings, engine, browser=browser)
    if made.skill is None:
        return f"! not harvested: {made.reason or made.error}"
    return made.skill.name


def run_fresh(
    script: Path, task: Task, app: Running, settings: Settings, rng: random.Random
) -> tuple[bool, float, str]:
    """One fresh instance: its values read from the command as the router reads them,
    given to the script as options; whether the app's check passed, seconds, and what the
    script said when it failed."""
    values = task.generate(rng, app)
    command = task.command(values)
    found = route(command, current_skills(open_store(settings)))
    if found is None:
        return False, 0.0, f"no skill's template matches {command!r}"
    options = ["--start-url", app.url + task.start, "--storage-state", str(app.storage_state)]
    for name, value in found.arguments.items():
        if name != "start_url":
            options += ["--" + name.replace("_", "-"), str(value)]
    chromium = find_chromium()
    options += ["--executable-path", str(chromium)] if chromium else []
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, script.name, *options],
        cwd=script.parent, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    seconds = time.perf_counter() - began
    final = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else None
    ok = done.returncode == 0 and task.check(app, values, final)
    said = "" if ok else (done.stderr.strip().splitlines() or ["check failed"])[-1][:160]
    return ok, seconds, said


def bench_app(name: str, fresh: int, only: set[str]) -> None:
    """Every task of one app: learn, export, run fresh."""
    spec = load(name)
    tasks = [t for t in spec.tasks if not t.logged_out and not t.secrets]
    tasks = [t for t in tasks if not only or t.name in only]
    with spec.start() as app, tempfile.TemporaryDirectory() as folder:
        for task in tasks:
            workspace = Path(folder) / task.name
            settings = load_settings().with_overrides(
                workspace=workspace, storage_state=app.storage_state
            )
            rng = random.Random(task.name)
            skill = asyncio.run(learn(task, app, settings, rng))
            if skill.startswith("!"):
                print(f"{name:10} {task.name:18} {skill}")
                continue
            try:
                code = exported_script(open_store(settings), skill)
            except UserError as exc:
                print(f"{name:10} {task.name:18} {skill}: {exc}")
                continue
            script = workspace / f"{skill}.py"
            script.write_text(code, encoding="utf-8")
            results = [run_fresh(script, task, app, settings, rng) for _ in range(fresh)]
            passed = sum(ok for ok, _s, _w in results)
            seconds = sum(s for _ok, s, _w in results) / max(len(results), 1)
            print(f"{name:10} {task.name:18} {skill}: {passed}/{fresh} fresh runs pass the "
                  f"app's check, {seconds:.1f} s each")  # fmt: skip
            for said in sorted({w for ok, _s, w in results if not ok}):
                print(f"{'':30} {said}")


def main() -> None:
    """Parse the options and bench each app."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", default="trac", help="Comma-separated apps (default: trac).")
    parser.add_argument("--fresh", type=int, default=5, help="Fresh runs per task.")
    parser.add_argument("--tasks", default="", help="Comma-separated task names (default: all).")
    args = parser.parse_args()
    only = {t for t in args.tasks.split(",") if t}
    for name in args.apps.split(","):
        bench_app(name, args.fresh, only)


if __name__ == "__main__":
    main()
