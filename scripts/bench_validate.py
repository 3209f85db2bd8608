"""Benchmark the validator: seconds to validate 50 harvested skills at concurrency 1 and 4.

Harvests five skills from offline-planner runs on the demo shop (127.0.0.1 only), then
registers copies under other names (each copy made from its plan under its own name) until
the store holds 50, and validates them all in one local headless Chromium, first one at
a time, then four at a time. Prints both times, seconds per skill and the speed-up.

    .venv/bin/python scripts/bench_validate.py [--skills 50] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from browser_agent.browser.session import launched_browser  # noqa: E402
from browser_agent.demo_site import start_demo_site  # noqa: E402
from browser_agent.plans.codegen import generate_module  # noqa: E402
from browser_agent.plans.plan_data import read_plan  # noqa: E402
from browser_agent.settings import Settings  # noqa: E402
from browser_agent.skills.loader import source_hash  # noqa: E402
from browser_agent.store.db import open_store  # noqa: E402
from browser_agent.store.models import Skill  # noqa: E402
from browser_agent.store.rows import SkillRow, columns  # noqa: E402
from browser_agent.store.skill_use import current_skills  # noqa: E402
from browser_agent.store.skills import add_version  # noqa: E402
from browser_agent.validate.validator import run_validation  # noqa: E402
from tests.skill_workspaces import (  # noqa: E402
    ACCEPT_COOKIES,
    ADD_TO_CART,
    OPEN_PRODUCT,
    SEARCH,
    harvest_commands,
    workspace_settings,
)

COMMANDS = [SEARCH, ADD_TO_CART, OPEN_PRODUCT, ACCEPT_COOKIES]


def copy_skill(skill: SkillRow, number: int, settings: Settings) -> Skill:
    """A healthy copy of ``skill`` under the name ``<name>_copy<number>``: its plan, and
    the code the plan makes for that name, kept in the store as a harvested skill's are."""
    name = f"{skill.name}_copy{number}"
    code = generate_module(read_plan(skill.plan), name)
    path = settings.harvested_dir / f"{name}_v1.py"
    path.write_text(code, encoding="utf-8")
    per_copy = {"id", "name", "module_path", "version", "created_at", "source", "source_hash"}
    fields = {key: getattr(skill, key) for key in columns(SkillRow) if key not in per_copy}
    return Skill(
        **fields,
        name=name,
        module_path=str(path.relative_to(settings.workspace)),
        source=code,
        source_hash=source_hash(code),
    )


async def bench(total: int, concurrency: int) -> dict[int, float]:
    """Seconds to validate ``total`` skills at concurrency 1 and ``concurrency``."""
    seconds = {}
    with tempfile.TemporaryDirectory() as workspace, start_demo_site(port=0) as demo:
        assert demo.url.startswith("http://127.0.0.1:")
        settings = workspace_settings(Path(workspace))
        engine = open_store(settings)
        async with launched_browser(settings) as browser:
            await harvest_commands(COMMANDS, settings, browser, demo)
            originals = list(current_skills(engine, "healthy"))
            for number in range(total - len(originals)):
                original = originals[number % len(originals)]
                add_version(engine, copy_skill(original, number, settings))
            for level in (1, concurrency):
                report = await run_validation(
                    settings, all_skills=True, concurrency=level, browser=browser
                )
                failed = [c for c in report.checked if c.verdict != "healthy"]
                for checked in failed:
                    print(
                        f"  concurrency {level}: {checked.name} {checked.verdict}: {checked.error}"
                    )
                seconds[level] = report.seconds
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=50, help="Skills to validate.")
    parser.add_argument("--concurrency", type=int, default=4, help="The parallel run's level.")
    args = parser.parse_args()
    seconds = asyncio.run(bench(args.skills, args.concurrency))
    print(
        f"Validating {args.skills} harvested skills on the demo shop (127.0.0.1), "
        f"{os.cpu_count()} CPUs:"
    )
    for level, taken in seconds.items():
        print(f"  concurrency {level}: {taken:6.1f} s  ({taken / args.skills:.2f} s per skill)")
    ratio = seconds[1] / seconds[args.concurrency]
    print(f"  speed-up at concurrency {args.concurrency}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
