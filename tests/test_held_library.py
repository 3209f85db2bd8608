"""Each document of a session's context holds the in-page library from its first moment,
so a read sends a few words instead of 40 kB; no page's script can put its own function in
its place, and a page the session did not open is read by sending the library along."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from browser_agent.browser.held import held_value
from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import count_and_run, run_on_page
from browser_agent.settings import Settings

PREFIX = "__browserAgentLibrary"  # how the held library's property name starts

# A page that looks for the library under every name it may have and tries each way a
# script has to put a function of its own in its place (saying what it found).
TAMPERING = f"""
<main><h1>Real heading</h1><button>Keep going</button></main>
<script>
  const fake = () => JSON.stringify({{ text: "FAKE all done" }});
  const names = Object.getOwnPropertyNames(window).filter((n) => n.startsWith("{PREFIX}"));
  for (const name of names) {{
    try {{ window[name] = fake; }} catch (e) {{}}
    try {{ delete window[name]; }} catch (e) {{}}
    try {{ Object.defineProperty(window, name, {{ value: fake }}); }} catch (e) {{}}
  }}
  document.body.dataset.found = String(names.length);
</script>
"""


async def held_names(page: Page) -> int:
    """How many library properties the page's window has."""
    return await page.evaluate(
        f'Object.getOwnPropertyNames(window).filter((n) => n.startsWith("{PREFIX}")).length'
    )


@pytest.mark.asyncio(loop_scope="session")
async def test_a_pages_script_cannot_replace_the_library_it_holds(
    page_session: BrowserSession,
) -> None:
    page = page_session.page
    await page.set_content(TAMPERING)
    assert await page.get_attribute("body", "data-found") == "1"  # held before its script
    observed = json.loads(await run_on_page(page, "observe", contentType="all_fields"))
    assert "Real heading" in observed["text"], observed
    assert "FAKE" not in observed["text"]
    count, said = await count_and_run(page.get_by_role("button"), "identity")
    assert (count, said) == (1, ["button", "button", "Keep going", False])


@pytest.mark.asyncio(loop_scope="session")
async def test_a_page_opened_outside_a_session_is_read_by_sending_the_library(
    browser: Browser, settings: Settings
) -> None:
    context = await browser.new_context()  # no session: its documents hold nothing
    try:
        for read_first in ("page", "element"):
            page = await context.new_page()
            await page.set_content("<main><h2>Opened elsewhere</h2><a href='#x'>Onward</a></main>")
            assert await held_names(page) == 0
            active = BrowserSession.around(page, settings)
            for read in (read_first, "element" if read_first == "page" else "page"):
                if read == "page":
                    observed = await run_on_page(active.page, "observe", contentType="all_fields")
                    assert "Opened elsewhere" in json.loads(observed)["text"]
                else:
                    link = active.page.get_by_role("link")
                    assert await count_and_run(link, "identity") == (
                        1,
                        ["a", "link", "Onward", False],
                    )
                assert await held_names(page) == 1  # kept for the reads that follow
        page = await context.new_page()  # a read that waits for its element, first
        await page.set_content("<label>Name <input value='Ada'></label>")
        assert await held_value(page.get_by_text("Name")) == "Ada"  # the label's field
        assert await held_names(page) == 1
    finally:
        await context.close()


def test_the_benchmark_times_a_read_by_the_held_library_and_by_the_sent_one() -> None:
    script = Path(__file__).resolve().parent.parent / "scripts" / "bench_page_reads.py"
    done = subprocess.run(
        [sys.executable, str(script), "--reads", "3", "--batches", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [row[:2] for row in rows if len(row) == 4] == [
        ["interruption", "held"],
        ["interruption", "sent"],
        ["observe", "held"],
        ["observe", "sent"],
    ]
    assert all(float(row[2]) > 0 for row in rows if len(row) == 4)  # each read took time
