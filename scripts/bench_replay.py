"""A routed command as a whole process against the same steps written by hand.

Starts the demo shop in this process and prepares a workspace in a temporary folder where
"search for sandals and sort by customer rating" was run once with the offline planner and
harvested, so the command routes to a skill with no LLM call. Then runs, interleaved,
``--runs`` times each: (a) ``browser-agent run COMMAND --url SHOP --json`` on that
workspace (checked: succeeded, 0 LLM calls) and (b) ``scripts/replay_by_hand.py``, the same
steps in plain Playwright. Prints the median wall time, the median CPU time and the ratio
product / hand-written.

CPU time is user + system time from ``getrusage(RUSAGE_CHILDREN)`` around each process:
the Python process and every descendant that was waited for when it ended (Playwright's
driver, Chromium and its helper processes, which Chromium reaps on a clean close). A
process left running to be reaped by init would not count; the demo shop's CPU (a thread
of this process) does not.

Both processes keep compiled bytecode in a cache in the temporary folder (warmed by the
preparing runs), as an installed package does, even where PYTHONDONTWRITEBYTECODE is set;
``--no-bytecode-cache`` runs them as the environment says instead. The product's
Playwright driver also keeps its compiled code, in the user's cache folder (warmed by the
preparing runs too); the hand-written script runs Playwright as it comes.

``--by-process`` also prints where the CPU time went: the Python process, Playwright's
driver (Node.js) and Chromium's processes, from their CPU times sampled every 20 ms while
each run lasts (approximate: what a process spends after its last sample is missed). Run:
    .venv/bin/python scripts/bench_replay.py [--runs 7] [--no-bytecode-cache] [--by-process]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from browser_agent.demo_site.server import start_demo_site

COMMAND = "search for sandals and sort by customer rating"
SCRIPTS = Path(__file__).resolve().parent
CLI = [str(Path(sys.executable).parent / "browser-agent")]  # the installed command
BY_HAND = [sys.executable, str(SCRIPTS / "replay_by_hand.py")]


ENV = dict(os.environ)  # the environment both processes run in


KINDS = ("python", "driver", "chromium")  # the processes --by-process tells apart
BY_PROCESS: dict[str, list[dict[str, float]]] = {}  # label: CPU seconds by kind, per run


def timed(argv: list[str], label: str | None = None) -> tuple[float, float, str]:
    """Run ``argv`` to its end: wall seconds, CPU seconds of it and its waited descendants,
    and its stdout; a failed process ends the benchmark with its output. With a ``label``
    (``--by-process``) the CPU of each kind of process is sampled and kept under it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV
    )
    samples: list[dict[str, float]] = []  # sampled beside the reading of its output
    sampler = threading.Thread(target=lambda: samples.append(sampled(process)))
    if label is not None:
        sampler.start()
    stdout, stderr = process.communicate()
    if label is not None:
        sampler.join()
        BY_PROCESS.setdefault(label, []).extend(samples)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({process.returncode}):\n{stdout}\n{stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, stdout


def sampled(process: subprocess.Popen[str]) -> dict[str, float]:
    """CPU seconds of ``process`` and its descendants by kind, sampled until it ends."""
    import psutil  # only for --by-process (a dev dependency)

    root = psutil.Process(process.pid)
    latest: dict[int, tuple[str, float]] = {}
    while process.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for each in tree:
            try:
                times = each.cpu_times()
                name = each.name()
            except psutil.Error:
                continue
            kind = "python" if each.pid == root.pid else "chromium"
            kind = "driver" if name.startswith("node") else kind
            latest[each.pid] = (kind, times.user + times.system)
        time.sleep(0.02)
    return {kind: sum(c for k, c in latest.values() if k == kind) for kind in KINDS}


def prepare(workspace: Path, shop: str) -> None:
    """Run the command once with the offline planner and harvest the run into a skill."""
    ws = ["--workspace", str(workspace)]
    timed([*CLI, *ws, "run", COMMAND, "--url", shop, "--model", "offline", "--json"])
    timed([*CLI, *ws, "harvest", "--all"])


def routed(workspace: Path, shop: str, label: str | None = None) -> tuple[float, float]:
    """One routed run: wall and CPU seconds; it must succeed with no LLM call."""
    argv = [*CLI, "--workspace", str(workspace), "run", COMMAND, "--url", shop, "--json"]
    wall, cpu, out = timed(argv, label)
    result = json.loads(out)
    if result["status"] != "succeeded" or result["llm_calls"] != 0:
        sys.exit(f"The routed run did not route: {out}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="Runs of each, interleaved.")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="Do not cache compiled bytecode where the environment says not to.",
    )
    parser.add_argument(
        "--by-process",
        action="store_true",
        help="Also print the CPU of the Python process, the driver and Chromium (sampled).",
    )
    options = parser.parse_args()
    if options.runs < 1:
        sys.exit("--runs must be at least 1")
    with start_demo_site(port=0) as site, tempfile.TemporaryDirectory() as folder:
        shop = f"{site.url}/"
        if not options.no_bytecode_cache:
            ENV.pop("PYTHONDONTWRITEBYTECODE", None)
            ENV["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "bytecode")
        workspace = Path(folder) / "workspace"
        prepare(workspace, shop)
        product: list[tuple[float, float]] = []
        by_hand: list[tuple[float, float]] = []
        labels = ("routed run", "hand-written") if options.by_process else (None, None)
        for _ in range(options.runs):
            product.append(routed(workspace, shop, labels[0]))
            by_hand.append(timed([*BY_HAND, shop], labels[1])[:2])
    cache = "no bytecode cache" if options.no_bytecode_cache else "bytecode cached"
    print(f"{options.runs} runs each, interleaved, {cache}; median seconds (CPU: with children)")
    rows = {"routed run (browser-agent run)": product, "hand-written Playwright": by_hand}
    medians = {}
    for label, times in rows.items():
        wall = statistics.median(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times)
        medians[label] = (wall, cpu)
        print(f"{label:<32} wall {wall:6.2f}  cpu {cpu:6.2f}")
    (pw, pc), (hw, hc) = medians.values()
    print(f"{'ratio product / hand-written':<32} wall {pw / hw:5.2f}x  cpu {pc / hc:5.2f}x")
    if BY_PROCESS:
        print("\nmedian CPU seconds by process (sampled every 20 ms, approximate)")
        print(f"{'':<32} " + "  ".join(f"{kind:>8}" for kind in KINDS))
        for label, runs in BY_PROCESS.items():
            cells = (statistics.median(run[kind] for run in runs) for kind in KINDS)
            print(f"{label:<32} " + "  ".join(f"{cell:8.2f}" for cell in cells))


if __name__ == "__main__":
    main()
