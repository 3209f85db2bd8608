"""What one read of a page costs when the page holds the in-page library against sending
the library's source with every read (as each read did before pages held it).

On the demo shop's home page in a session (whose documents hold the library), reads the
page with ``run_on_page`` and, interleaved in batches, with ``page.evaluate`` of the
library's whole source. Two reads: a cheap one (``interruption``, which only looks for a
watch that is not there) shows the cost of the call itself; ``observe`` (the planner's
view of the page) shows it beside real work. Prints the median wall ms per read and the
CPU ms per read of Playwright's driver and Chromium together (psutil, a dev dependency),
and the ratio sent / held (CPU counts in clock ticks of 10 ms: a batch needs enough reads
to count). Run:
    .venv/bin/python scripts/bench_page_reads.py [--reads 50] [--batches 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import psutil

from browser_agent.browser.session import browser_session
from browser_agent.demo_site import start_demo_site
from browser_agent.dom.library import page_library, run_on_page
from browser_agent.settings import load_settings

READS = {"interruption": {"look": False}, "observe": {"contentType": "all_fields"}}


def children_cpu() -> float:
    """CPU seconds so far of this process's descendants (the driver and Chromium)."""
    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


async def batch(read: Any, reads: int) -> tuple[float, float]:
    """Wall and children's CPU ms per read over ``reads`` reads."""
    cpu, started = children_cpu(), time.perf_counter()
    for _ in range(reads):
        await read()
    return (
        (time.perf_counter() - started) * 1000 / reads,
        (children_cpu() - cpu) * 1000 / reads,
    )


async def main(reads: int, batches: int) -> None:
    with start_demo_site(port=0) as site:
        async with browser_session(load_settings()) as active:
            page = active.page
            await page.goto(site.url + "/", wait_until="load")
            print(f"{reads} reads a batch, {batches} batches interleaved; median ms per read")
            print(f"{'read':<14} {'way':<11} {'wall':>7} {'cpu':>7}")
            for op, options in READS.items():
                arg = {"op": op, **options}
                ways = {
                    "held": lambda op=op, options=options: run_on_page(page, op, **options),
                    "sent": lambda arg=arg: page.evaluate(page_library(), arg),
                }
                timings: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
                for _ in range(batches):
                    for way, read in ways.items():
                        timings[way].append(await batch(read, reads))
                medians = {
                    way: (
                        statistics.median(t[0] for t in runs),
                        statistics.median(t[1] for t in runs),
                    )
                    for way, runs in timings.items()
                }
                for way, (wall, cpu) in medians.items():
                    print(f"{op:<14} {way:<11} {wall:7.2f} {cpu:7.2f}")
                (held_wall, held_cpu), (sent_wall, sent_cpu) = medians.values()
                print(
                    f"{op:<14} {'sent / held':<11} {ratio(sent_wall, held_wall):>7}"
                    f" {ratio(sent_cpu, held_cpu):>7}"
                )


def ratio(over: float, under: float) -> str:
    """``over / under`` as a factor; "-" when too few reads gave ``under`` no clock tick."""
    return f"{over / under:.2f}x" if under > 0 else "-"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=50, help="reads in one batch")
    parser.add_argument("--batches", type=int, default=7, help="batches of each way")
    arguments = parser.parse_args()
    if arguments.reads < 1 or arguments.batches < 1:
        parser.error("--reads and --batches must be at least 1")
    asyncio.run(main(arguments.reads, arguments.batches))
