"""Time to annotate and distill pages, element counts, and output size versus raw HTML.

Prints one row per page and content type: the demo pages, generated large pages, and,
when installed, a large local HTML document (Debian's python3.11-doc); then, per large
page, how much of it is within reach: actionable elements, how many the first observation
shows, how many the windows and find_elements reach, observations for the farthest, and
how much faster one distillation is than one page round trip per actionable element
(what reading each element through its own locator costs). Run:
    .venv/bin/python scripts/bench_dom.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from browser_agent.browser.find import find_on_page
from browser_agent.browser.observe import observe_page
from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.demo_site import start_demo_site
from browser_agent.dom.library import run_on_page
from browser_agent.settings import load_settings

UNCAPPED = 100_000_000
DEMO_PAGES = ["/", "/search?q=trail+shoes", "/product/trail-blazer-2", "/checkout", "/help"]
LARGE_DOCS = [
    Path("/usr/share/doc/python3.11/html/library/stdtypes.html"),
    Path("/usr/share/doc/python3.11/html/genindex-all.html"),
]


def install_python_docs() -> None:
    """Install Debian's python3.11-doc when its pages are missing and apt can (as root)."""
    if any(doc.exists() for doc in LARGE_DOCS):
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return
    print("installing python3.11-doc (large local HTML pages) with apt-get ...", flush=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "python3.11-doc"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )


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


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves the generated pages without a line per request in the figures."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return


def generated_pages(folder: Path) -> None:
    """A 3,000-link index table and an ARIA listbox of 3,000 options, written to ``folder``."""
    rows = "".join(
        f'<tr><td><a href="/catalog/item-{i}?ref=index&amp;utm_source=generated-table-page">'
        f"Item {i}</a></td><td>Description of item {i}</td></tr>"
        for i in range(3_000)
    )
    (folder / "links.html").write_text(f"<title>Links</title><table>{rows}</table>", "utf-8")
    options = "".join(f'<li role="option" tabindex="-1">Option {i}</li>' for i in range(3_000))
    (folder / "listbox.html").write_text(
        f'<title>Listbox</title><ul role="listbox" aria-label="Choices">{options}</ul>', "utf-8"
    )


ROUND_TRIP_SAMPLES = 40


async def round_trip_ms(active: BrowserSession, actionable: int) -> float:
    """Median ms of one round trip that reads one annotated element through its locator,
    sampled over the page's elements."""
    elements = active.page.locator("[mmid]")
    step = max(1, actionable // ROUND_TRIP_SAMPLES)
    timings = []
    for index in range(0, min(actionable, step * ROUND_TRIP_SAMPLES), step):
        started = time.perf_counter()
        await elements.nth(index).get_attribute("mmid")
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


async def reach(url: str) -> tuple:
    """(actionable, shown first, reachable by the windows, by find_elements, observations for
    the farthest, all_fields chars uncapped, raw HTML chars, ms of one uncapped distillation,
    ms of one round trip per element) of one page."""
    async with browser_session(load_settings()) as active:
        await active.page.goto(url, wait_until="load")
        raw = len(await active.page.content())
        started = time.perf_counter()
        uncapped = await observe_page(active, "all_fields", budget=UNCAPPED)
        distill_ms = (time.perf_counter() - started) * 1000
        found = json.loads(await run_on_page(active.page, "find"))["found"]
        first = await observe_page(active, "input_fields")
        shown_first = first.interactive - first.above - first.below
        windowed: set[str] = set()
        window = 1
        while True:
            seen = await observe_page(active, "input_fields", page=window)
            windowed |= {
                line.split("]")[0][1:] for line in seen.text.splitlines() if line.startswith("[")
            }
            if not seen.below:
                break
            window += 1
        actionable = {str(entry[0]) for entry in found}
        last_mmid, last_name = (found[-1][0], found[-1][3]) if found else ("", "")
        await active.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        bottom = await observe_page(active, "input_fields")
        searched = await find_on_page(active, last_name, 20)
        needed = 1 if f"[{last_mmid}]" in bottom.text or f"[{last_mmid}]" in searched else None
        per_element_ms = await round_trip_ms(active, len(actionable)) * len(actionable)
        return (
            len(actionable),
            shown_first,
            len(actionable & windowed),
            len(found),
            needed,
            len(uncapped.text),
            raw,
            distill_ms,
            per_element_ms,
        )


async def main(repeat: int) -> None:
    budget = load_settings().dom_budget_chars
    with start_demo_site(port=0) as site:
        urls = [site.url + path for path in DEMO_PAGES]
        urls += [f"{site.url}/big?n={n}" for n in (1_000, 10_000, 50_000)]
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
        with tempfile.TemporaryDirectory() as folder:
            generated_pages(Path(folder))
            handler = partial(QuietHandler, directory=folder)
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            served = f"http://127.0.0.1:{server.server_address[1]}"
            print()
            print("within reach (input_fields windows; the farthest element after scrolling to")
            print("the bottom, or found by its name): observations needed, 1 = one get_dom or")
            print("one find_elements); all_fields uncapped against the HTML; one distillation's ms")
            print("against one round trip per actionable element (x: how many times faster)")
            print(
                f"{'page':<44} {'actionable':>10} {'first':>6} {'windows':>7} {'find':>6}"
                f" {'obs':>4} | {'all_fields':>10} {'html':>8} {'ratio':>6}"
                f" | {'ms':>7} {'trips ms':>9} {'x':>6}"
            )
            reach_urls = [
                f"{site.url}/big?n=10000",
                f"{served}/links.html",
                f"{served}/listbox.html",
            ]
            reach_urls += [doc.as_uri() for doc in LARGE_DOCS if doc.exists()]
            for url in reach_urls:
                actionable, first, windows, found, needed, out, raw, ms, trips = await reach(url)
                shown = url.replace(site.url, "demo").replace(served, "generated")[-44:]
                print(
                    f"{shown:<44} {actionable:>10} {first:>6} {windows:>7} {found:>6}"
                    f" {needed or '-':>4} | {out:>10} {raw:>8} {out / raw:>6.3f}"
                    f" | {ms:>7.0f} {trips:>9.0f} {trips / ms:>6.1f}"
                )
            server.shutdown()
        if not any(doc.exists() for doc in LARGE_DOCS):
            print(
                "python3.11-doc pages: skipped (not installed, and apt-get could not install them)"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timings per page (median shown)")
    arguments = parser.parse_args()
    install_python_docs()
    asyncio.run(main(arguments.repeat))
