"""Time to annotate and distill pages, element counts, and output size versus raw HTML.

Prints one row per page and content type: the demo pages, generated large pages, and,
when installed, a large local HTML document (Debian's python3.11-doc). Run:
    .venv/bin/python scripts/bench_dom.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from browser_agent.browser.session import browser_session
from browser_agent.demo_site import start_demo_site
from browser_agent.dom.observe import observe_page
from browser_agent.settings import load_settings

UNCAPPED = 100_000_000
DEMO_PAGES = ["/", "/search?q=trail+shoes", "/product/trail-blazer-2", "/checkout", "/help"]
UNCAPPED = 100_000_000
LARGE_DOCS = [
    Path("/usr/share/doc/python3.11/html/library/stdtypes.html"),
    Path("/usr/share/doc/python3.11/html/genindex-all.html"),
]


async def measure(url: str, repeat: int) -> list[tuple]:
    """Rows of (page, content type, elements, median ms, output chars uncapped, output chars
    with the default size budget, raw HTML chars)."""
    rows = []
    async with browser_session(load_settings()) as active:
        await active.page.goto(url, wait_until="load")
        raw = len(await active.page.content())
        for kind in ("text_only", "input_fields", "all_fields"):
            timings = []
            for _ in range(repeat):
                started = time.perf_counter()
                full = await observe_page(active, kind, budget=UNCAPPED)
                timings.append((time.perf_counter() - started) * 1000)
            capped_timings = []
            for _ in range(repeat):
                started = time.perf_counter()
                capped = await observe_page(active, kind)
                capped_timings.append((time.perf_counter() - started) * 1000)
            ms = statistics.median(timings)
            capped_ms = statistics.median(capped_timings)
            rows.append(
                (url, kind, full.elements, ms, len(full.text), capped_ms, len(capped.text), raw)
            )
    return rows


async def main(repeat: int) -> None:
    budget = load_settings().dom_budget_chars
    with start_demo_site(port=0) as site:
        urls = [site.url + path for path in DEMO_PAGES]
        urls += [f"{site.url}/big?n={n}" for n in (1_000, 10_000)]
        urls += [doc.as_uri() for doc in LARGE_DOCS if doc.exists()]
        print(
            "median ms to annotate and distill, distilled characters (out) and their ratio to "
            f"the raw HTML: uncapped, then with the default budget of {budget} characters"
        )
        print(
            f"{'page':<44} {'content':<13} {'elements':>8} | {'ms':>7} {'out':>8} {'ratio':>6} |"
            f" {'ms':>7} {'out':>7} {'ratio':>6} | {'raw':>8}"
        )
        for url in urls:
            for page, kind, elements, ms, out, capped_ms, capped, raw in await measure(url, repeat):
                shown = page.replace(site.url, "demo")[-44:]
                print(
                    f"{shown:<44} {kind:<13} {elements:>8} | {ms:>7.1f} {out:>8} "
                    f"{out / raw:>6.3f} | {capped_ms:>7.1f} {capped:>7} {capped / raw:>6.3f} |"
                    f" {raw:>8}"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timings per page (median shown)")
    asyncio.run(main(parser.parse_args().repeat))
