"""Skill health on a slow site and a busy machine: routed commands that must not be fooled.

Starts the demo shop in this process, harvests two skills in a temporary workspace
("search for X and sort by Y", "open PRODUCT") with the offline planner, then slows every
response of the shop by ``--latency-ms`` (300) and runs ``--commands`` (200) routed
commands with other values, twice: while Debian's ``stress-ng`` keeps every core busy
(started and stopped here, and bounded in time by its own ``--timeout``), and with no
load. Each series starts from the harvested workspace as it was. Prints per series: the
share of commands that were routed and succeeded (0 model calls), the skills marked
broken, and the outcomes the runs left in the skills' health windows by kind (the window
holds the whole series here) (a step
that came late is kept as ``late``; a late one read as ``broken`` would show there, with
its error below). Run:
    .venv/bin/python scripts/bench_health.py [--commands 200] [--latency-ms 300]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site.server import DemoSite, start_demo_site
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings, load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.health import RUN, healths, outcomes_of
from browser_agent.store.skill_use import current_skills

TAUGHT = ["search for trail shoes and sort by price low to high", "open Trail Blazer 2"]
TERMS = ["sandals", "boots", "road shoes", "trail shoes", "running shoes", "socks"]
SORTS = ["price low to high", "price high to low", "customer rating", "best seller"]
FEATURED = ["Road Glide 5", "Daily Trainer", "Trail Blazer 2", "Tempo Flash"]
SECONDS_PER_COMMAND = 15  # the load's bound: generous for a slow machine


def commands(count: int) -> list[str]:
    """``count`` commands for the two skills, with values other than the taught ones."""
    searches = (f"search for {t} and sort by {s}" for t, s in itertools.product(TERMS, SORTS))
    opens = (f"open {product}" for product in FEATURED)
    mixed = itertools.chain.from_iterable(zip(itertools.cycle(searches), itertools.cycle(opens)))
    return list(itertools.islice(mixed, count))


def settings_for(workspace: Path, window: int = 20) -> Settings:
    """The offline planner takes over a command no skill does; the health window holds
    every run of a series, so the outcomes printed are all of them."""
    return load_settings().with_overrides(
        workspace=workspace, llm_model="offline", health_window=max(window, 20)
    )


async def prepare(workspace: Path, site: DemoSite) -> None:
    """Teach the skills on the quick shop: one planner run each, harvested and verified."""
    settings = settings_for(workspace)
    engine = open_store(settings)
    async with launched_browser(settings) as browser:
        for command in TAUGHT:
            run = await run_command(
                command, OfflinePlanner(), settings, start_url=f"{site.url}/", browser=browser,
                engine=engine,
            )  # fmt: skip
            if run.status != "succeeded":
                sys.exit(f"could not teach {command!r}: {run.answer}")
            (made,) = await harvest([Path(run.log_path)], settings, engine, browser=browser)
            if made.skill is None or not made.verified:
                sys.exit(f"could not harvest {command!r}: {made.error or made.verify_error}")


def start_load(seconds: int) -> subprocess.Popen[bytes]:
    """stress-ng on every core for at most ``seconds`` (installed with apt-get if missing)."""
    if shutil.which("stress-ng") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            sys.exit("stress-ng is missing: apt-get install stress-ng")
        print("installing stress-ng with apt-get ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-q", "stress-ng"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    cores = os.cpu_count() or 2
    return subprocess.Popen(
        ["stress-ng", "--cpu", str(cores), "--timeout", f"{seconds}s", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def series(workspace: Path, site: DemoSite, count: int) -> dict:
    """Run ``count`` routed commands; what they left."""
    settings = settings_for(workspace, count)
    engine = open_store(settings)
    routed_ok = 0
    started = time.perf_counter()
    async with launched_browser(settings) as browser:
        for command in commands(count):
            run = await run_command(
                command, OfflinePlanner(), settings, start_url=f"{site.url}/", browser=browser,
                engine=engine,
            )  # fmt: skip
            routed_ok += run.status == "succeeded" and run.llm_calls == 0
    store = Store.of(engine)
    skills = current_skills(store)
    states = healths(store, skills, settings.health_window)
    kept = outcomes_of(store, [s.id for s in skills])
    runs = [o for each in kept.values() for o in each if o.via == RUN]
    return {
        "routed": routed_ok,
        "seconds": time.perf_counter() - started,
        "broken": [s.name for s in skills if states[s.id].state == "broken"],
        "states": {s.name: states[s.id].state for s in skills},
        "kinds": Counter(o.kind for o in runs),
        "errors": [f"{o.kind}: {o.error}" for o in runs if o.kind != "ok"][:5],
    }


def report(label: str, count: int, found: dict) -> None:
    share = 100 * found["routed"] / count
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(found["kinds"].items()))
    print(f"{label}: {found['routed']}/{count} routed and succeeded ({share:.1f}%) in "
          f"{found['seconds']:.0f} s; skills marked broken: {len(found['broken'])} "
          f"{found['broken'] or ''}".rstrip())  # fmt: skip
    print(f"  states {found['states']}; run outcomes kept (window): {kinds}")
    for error in found["errors"]:
        print(f"  {error[:300]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200, help="routed commands per series")
    parser.add_argument("--latency-ms", type=int, default=300, help="the shop's delay")
    options = parser.parse_args()
    if options.commands < 1:
        sys.exit("--commands must be at least 1")
    with start_demo_site(port=0) as site, tempfile.TemporaryDirectory() as folder:
        taught = Path(folder) / "taught"
        asyncio.run(prepare(taught, site))
        site.latency_ms = options.latency_ms
        print(f"{options.commands} routed commands per series, shop latency "
              f"{options.latency_ms} ms, {os.cpu_count()} cores")  # fmt: skip
        for label, loaded in (("busy (stress-ng on every core)", True), ("no load", False)):
            workspace = Path(folder) / ("busy" if loaded else "idle")
            shutil.copytree(taught, workspace)
            load = start_load(options.commands * SECONDS_PER_COMMAND + 60) if loaded else None
            try:
                found = asyncio.run(series(workspace, site, options.commands))
            finally:
                if load is not None:
                    load.terminate()
                    load.wait(timeout=30)
            report(label, options.commands, found)


if __name__ == "__main__":
    main()
