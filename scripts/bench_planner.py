"""Benchmark the offline planner: success, steps and seconds per command, and totals.

Runs every command of the offline suite (tests/offline_suite.py: the commands and the
refusals) in local headless Chromium against the demo shop on 127.0.0.1, checks each
against the shop's real end state, and prints one line per command and the totals.
Nothing leaves the machine: no LLM endpoint, no remote browser.

    .venv/bin/python scripts/bench_planner.py [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site import start_demo_site
from browser_agent.settings import load_settings
from browser_agent.store.db import open_store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.offline_suite import CASES, REFUSALS, run_case, verify  # noqa: E402


@dataclass
class Row:
    """One command's run: did the shop end as expected, and what it cost."""

    name: str
    ok: bool
    steps: int
    seconds: float
    why: str = ""


async def bench(repeat: int) -> list[Row]:
    """Run the suite ``repeat`` times in one local browser; one Row per run."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as workspace, start_demo_site(port=0) as demo:
        assert demo.url.startswith("http://127.0.0.1:")
        settings = load_settings().with_overrides(workspace=Path(workspace))
        settings = settings.model_copy(update={"browser_endpoint": None})
        store = open_store(settings)
        async with launched_browser(settings) as browser:
            for _ in range(repeat):
                for name, case in {**CASES, **REFUSALS}.items():
                    outcome = await run_case(case, settings, browser, demo, store)
                    try:
                        verify(case, outcome)
                        why = ""
                    except AssertionError as exc:
                        why = str(exc).splitlines()[0][:70] if str(exc) else "check failed"
                    result = outcome.result
                    rows.append(Row(name, not why, result.steps, result.seconds, why))
    return rows


def report(rows: list[Row]) -> None:
    """Print the per-command table and the totals."""
    print(f"{'command':<24} {'result':<7} {'steps':>5} {'seconds':>8}")
    for row in rows:
        mark = "ok" if row.ok else "FAIL"
        print(f"{row.name:<24} {mark:<7} {row.steps:>5} {row.seconds:>8.2f}  {row.why}")
    passed = sum(row.ok for row in rows)
    steps = [row.steps for row in rows]
    seconds = [row.seconds for row in rows]
    print(
        f"\n{passed}/{len(rows)} succeeded ({100 * passed / len(rows):.0f}%); "
        f"steps: {sum(steps)} total, {statistics.mean(steps):.1f} mean; "
        f"seconds: {sum(seconds):.1f} total, {statistics.mean(seconds):.2f} mean, "
        f"{statistics.median(seconds):.2f} median"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="Run the suite this many times.")
    rows = asyncio.run(bench(max(1, parser.parse_args().repeat)))
    report(rows)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
