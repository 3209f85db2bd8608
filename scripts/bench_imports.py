"""What a routed command's Python process loads beyond the hand-written Playwright steps,
and the CPU each package costs to load: the part of ``scripts/bench_replay.py``'s gap that
is start-up.

Prepares the workspace as bench_replay does (the demo shop's search-and-sort, run once and
harvested), then runs the routed command and ``scripts/replay_by_hand.py`` once each under
``python -X importtime`` to learn the modules each loads, in the order they finish loading.
Then, ``--runs`` times in a fresh process: the hand-written script's modules are loaded
first, then the routed run's others in their order, each load's CPU time (this process's
``time.process_time``) counted to its top-level package. Prints the median CPU by package,
the total beyond the hand-written script's modules, and what loading those cost. Bytecode
is cached as bench_replay caches it. Run:
    .venv/bin/python scripts/bench_imports.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_replay import BY_HAND, COMMAND, prepare

from browser_agent.demo_site.server import start_demo_site

SHOWN_FROM = 0.0005  # packages costing less are summed on one line (seconds)

#: Loads the given modules in order in a fresh process, printing each one's CPU seconds.
LOADER = """
import importlib, json, sys, time
costs = []
for name in json.loads(sys.argv[1]):
    started = time.process_time()
    try:
        importlib.import_module(name)
    except Exception:  # a module only its own parent can load: counted with the parent
        pass
    costs.append(time.process_time() - started)
print(json.dumps(costs))
"""


def loaded(argv: list[str], env: dict[str, str]) -> tuple[list[str], str]:
    """The modules ``argv`` (a Python command) loads, in the order they finish loading, and
    what it printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    names = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "| imported package" not in line:
            names.append(line.rsplit("|", 1)[1].strip())
    return names, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="Fresh processes to time.")
    options = parser.parse_args()
    if options.runs < 1:
        sys.exit("--runs must be at least 1")
    with start_demo_site(port=0) as site, tempfile.TemporaryDirectory() as folder:
        shop = f"{site.url}/"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        workspace = Path(folder) / "workspace"
        prepare(workspace, shop)
        routed = ["-m", "browser_agent.cli", "--workspace", str(workspace), "run", COMMAND]
        product, out = loaded([*routed, "--url", shop, "--json"], env)
        result = json.loads(out)
        if result["status"] != "succeeded" or result["llm_calls"] != 0:
            sys.exit(f"The routed run did not route: {out}")  # it would load the planner
        by_hand, _ = loaded([*BY_HAND[1:], shop], env)
        shared = set(by_hand)
        extra = [name for name in product if name not in shared]
        order = [*by_hand, *extra]
        costs: list[list[float]] = []
        for _ in range(options.runs):
            done = subprocess.run(
                [sys.executable, "-c", LOADER, json.dumps(order)],
                capture_output=True, text=True, env=env, check=True,
            )  # fmt: skip
            costs.append(json.loads(done.stdout))
    by_package: dict[str, list[float]] = {}
    for index, name in enumerate(extra, start=len(by_hand)):
        package = name.split(".")[0].lstrip("_")
        totals = by_package.setdefault(package, [0.0] * options.runs)
        for run, cost in enumerate(costs):
            totals[run] += cost[index]
    base = statistics.median(sum(cost[: len(by_hand)]) for cost in costs)
    beyond = statistics.median(sum(cost[len(by_hand) :]) for cost in costs)
    print(f"{options.runs} fresh processes, bytecode cached; median CPU milliseconds")
    row(f"the hand-written script's {len(by_hand)} modules", base)
    row(f"the routed run's {len(extra)} other modules", beyond)
    medians = {package: statistics.median(totals) for package, totals in by_package.items()}
    small = [cost for cost in medians.values() if cost < SHOWN_FROM]
    for package, cost in sorted(medians.items(), key=lambda item: -item[1]):
        if cost >= SHOWN_FROM:
            row(f"  {package}", cost)
    row(f"  {len(small)} other packages, each under {1000 * SHOWN_FROM:.1f}", sum(small))


def row(label: str, seconds: float) -> None:
    """One line of the table: a label and milliseconds."""
    print(f"{label:<52} {1000 * seconds:7.1f}")


if __name__ == "__main__":
    main()
