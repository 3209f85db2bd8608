"""A skill's step waits for its effect up to a deadline that follows the site's pace: a
navigation that starts late passes, a page on its way past the deadline is late (not
broken), and a page that never moves on is stale. The pages are tests/pages, served on
127.0.0.1, one with a server that holds a page back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from browser_agent.browser.awaiting import deadline_s, paced
from browser_agent.browser.session import BrowserSession
from browser_agent.failure_kinds import LATE, SkillLate, classify
from browser_agent.settings import Settings
from browser_agent.skills.primitive import click, open_url, select_option
from browser_agent.skills.run_state import skill_run
from browser_agent.skills.runtime import SkillStale, Target, expect, find

PAGES = Path(__file__).parent / "pages"


class _SlowPages(SimpleHTTPRequestHandler):
    """tests/pages; ``/held`` answers only after ``held_s`` seconds."""

    held_s = 0.0

    def do_GET(self) -> None:  # noqa: N802
        if self.path.startswith("/held"):
            time.sleep(self.held_s)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<title>Held</title><p>at last</p>")
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_SlowPages, directory=str(PAGES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


SORT = Target(step=1, selector="#sort", role="combobox", name="Sort")
NEXT = Target(step=1, selector="#next", role="button", name="Next")


async def sort_late(pages: str, query: str = "") -> str:
    """Open the late page, choose a sort by its loose name; the page moves on later."""
    await open_url(f"{pages}/late.html{query}")
    return await select_option(await find(SORT), "price low to high")


async def test_a_navigation_that_starts_after_500_ms_is_awaited(
    pages: str, page_session: BrowserSession
) -> None:
    said = await sort_late(pages)
    assert "navigated" not in said  # the page had not moved on when the step ended
    await expect(SORT, said, selected="price low to high", navigated=True)
    assert "sorted=1&sort=price_asc" in page_session.page.url

    await open_url(f"{pages}/late.html")
    said = await click(await find(NEXT))
    await expect(NEXT, said, navigated_to="/late.html")
    assert "sorted=1" in page_session.page.url


async def test_with_a_deadline_of_100_ms_the_late_navigation_reads_as_a_page_that_stayed(
    pages: str, settings: Settings, page_session: BrowserSession
) -> None:
    page_session.settings = settings.with_overrides(effect_timeout_ms=100)
    said = await sort_late(pages, "?delay=3000")  # later than 3 times the step's own time
    with pytest.raises(SkillStale, match="expected the page to move on, but it stayed on"):
        await expect(SORT, said, selected="price low to high", navigated=True)


async def test_a_page_on_its_way_past_the_deadline_is_late_not_broken(
    pages: str, settings: Settings, page_session: BrowserSession
) -> None:
    page_session.settings = settings.with_overrides(effect_timeout_ms=300)
    _SlowPages.held_s = 6.0  # asked for at 300 ms, there after 6 s: past two deadlines
    try:
        await open_url(f"{pages}/late.html?delay=300&to=/held?x=1")
        said = await click(await find(NEXT))
        with pytest.raises(SkillLate, match="a new page was asked for but had not come") as late:
            await expect(NEXT, said, navigated=True)
        assert classify(late.value) == LATE
    finally:
        _SlowPages.held_s = 0.0


async def test_a_page_on_its_way_within_two_deadlines_is_retried_in_place_and_passes(
    pages: str, settings: Settings, page_session: BrowserSession
) -> None:
    page_session.settings = settings.with_overrides(effect_timeout_ms=600)
    _SlowPages.held_s = 0.8  # asked for at 300 ms, there at ~1.1 s: within the second wait
    try:
        await open_url(f"{pages}/late.html?delay=300&to=/held?x=1")
        said = await click(await find(NEXT))
        await expect(NEXT, said, navigated=True)
        assert "/held" in page_session.page.url
    finally:
        _SlowPages.held_s = 0.0


def test_the_deadline_follows_the_sites_recorded_pace(settings: Settings) -> None:
    base = settings.effect_timeout_ms / 1000
    assert deadline_s(settings) == base
    with paced(10.0):  # a site whose slowest recorded step took 10 s
        assert deadline_s(settings) == 30.0
    assert deadline_s(settings, took_s=base) == 3 * base  # this step's own action was slow
    assert deadline_s(settings.with_overrides(effect_timeout_ms=9_000)) == 9.0


# Recorded on another database's page: its address names that database, not this one.
OPERATIONS = Target(
    step=1,
    selector='role=link[name="Operations"]',
    role="link",
    name="Operations",
    tag="a",
    text="Operations",
    attributes={"href": "tabs-by-script.html?tab=operations&db=archive_2013"},
)


async def test_a_tab_whose_content_comes_by_fetch_is_read_once_it_came(
    pages: str, page_session: BrowserSession
) -> None:
    """The tab's link holds an icon whose alt repeats its text ("Operations Operations" to
    the accessibility tree): found by the text it shows; the page changes its address at
    once, starts a fetch 60 ms later and shows its content when it answers 0.8 s after
    that: the click waits for it."""
    _SlowPages.held_s = 0.8
    try:
        await open_url(f"{pages}/tabs-by-script.html")
        said = await click(await find(OPERATIONS))
        assert "tab=operations" in page_session.page.url, said
        assert await page_session.page.inner_text("#content") == "Drop the database"
    finally:
        _SlowPages.held_s = 0.0


async def test_of_several_links_to_the_recorded_address_none_named_so_the_first_is_taken(
    pages: str, page_session: BrowserSession
) -> None:
    """Recorded as "Tasks", now relabelled: two links (an icon, a tab) go to its address,
    by a query of the same route, so they lead to one page; the first is taken and said."""
    relabelled = replace(
        OPERATIONS, selector='role=link[name="Tasks"]', name="Tasks", text="Tasks",
        attributes={"href": "tabs-by-script.html?tab=operations"},
    )  # fmt: skip
    await open_url(f"{pages}/tabs-by-script.html")
    said = await click(await find(relabelled))
    assert "tab=operations" in page_session.page.url, said
    assert any("several links go to" in note for note in skill_run().notes)
