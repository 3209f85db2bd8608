"""CPU time of the command line's quick commands, started cold in a process of their own.

Runs ``browser-agent --help``, ``runs`` and ``skills`` (on a fresh workspace with its store
made once beforehand) and a bare ``python -c pass`` as the baseline, each --repeat times,
and prints for each the best CPU time (user + system, the least disturbed by other work on
the machine), how many of the package's modules it imported and its ratio to the baseline.
A command loads only what it uses: ``--help`` imports neither the store nor the browser.
    .venv/bin/python scripts/bench_cli.py [--repeat 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "browser-agent --help": ["-m", "browser_agent", "--help"],
    "browser-agent runs": ["-m", "browser_agent", "runs"],
    "browser-agent skills": ["-m", "browser_agent", "skills"],
}
# Prints how many of the package's modules a command imported, after it ran.
COUNT = (
    "import atexit, sys; atexit.register(lambda: print(sum(1 for m in list(sys.modules) "
    "if m.startswith('browser_agent')), file=sys.stderr))"
)


def cpu_seconds(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one child process running ``python ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *args], env=env, capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def modules_imported(args: list[str], env: dict[str, str]) -> int:
    """How many of the package's modules the command imports."""
    if args[0] == "-c":
        return 0
    code = f"{COUNT}; import runpy; sys.argv = {['browser-agent', *args[2:]]!r}; "
    code += "runpy.run_module('browser_agent', run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of each command (best kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as workspace:
        env = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(Path(workspace))}
        cpu_seconds(COMMANDS["browser-agent runs"], env)  # makes the store once
        figures = {}
        for name, args in COMMANDS.items():
            best = min(cpu_seconds(args, env) for _ in range(options.repeat))
            figures[name] = {"cpu_s": round(best, 3), "modules": modules_imported(args, env)}
    base = figures["python -c pass"]["cpu_s"] or 0.001
    for figure in figures.values():
        figure["ratio"] = round(figure["cpu_s"] / base, 1)
    if options.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{'command':<24} {'CPU s':>7} {'modules':>8} {'× python':>9}")
    for name, figure in figures.items():
        print(f"{name:<24} {figure['cpu_s']:>7.3f} {figure['modules']:>8} {figure['ratio']:>9}")


if __name__ == "__main__":
    main()
