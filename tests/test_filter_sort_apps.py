"""The embedded planner filters and sorts a list on two real applications served on
127.0.0.1, the way a person does: Datasette's filter form (a drop-down of columns, one of
comparisons, a value field, Apply) and its column headers; Trac's custom query, where
choosing a column in "And" adds that column's filter, and its column headers. Success is
each application's own account of the page the run ended on: Datasette's JSON of it,
Trac's CSV of it, compared with what their databases hold. And the link to the next page
of results, as the applications name it."""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import Iterator
from contextlib import closing

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.offline.boxes import next_page
from browser_agent.llm.offline.page import parse_page
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.skills.end_state import end_state
from browser_agent.skills.primitive import open_url
from scripts.apps import Running, load

DATASETTE = load("datasette")
TRAC = load("trac")
SIGHTINGS = {task.name: task for task in DATASETTE.tasks}


@pytest.fixture(scope="module")
def datasette() -> Iterator[Running]:
    with DATASETTE.start() as app:
        yield app


@pytest.fixture(scope="module")
def trac() -> Iterator[Running]:
    with TRAC.start() as app:
        with closing(sqlite3.connect(app.home / "env/db/trac.db")) as db, db:
            db.execute("UPDATE ticket SET owner = 'dave' WHERE id IN (2, 5)")
        yield app


async def run(command: str, app: Running, path: str, settings: Settings, browser: Browser
              ) -> RunResult:  # fmt: skip
    return await run_command(
        command, OfflinePlanner(), settings, start_url=f"{app.url}{path}", browser=browser
    )  # fmt: skip


def shown_tickets(app: Running, final_url: str | None) -> list[dict[str, str]]:
    """The tickets Trac lists on the run's final page, by its own CSV of that query."""
    assert final_url and "/query" in final_url, final_url
    text = app.get(f"{final_url}{'&' if '?' in final_url else '?'}format=csv")
    return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))


@pytest.mark.parametrize(
    ("task", "command", "values"),
    [
        ("filter", "show the sightings where species is osprey", {"species": "osprey"}),
        ("greater-than", "show the sightings with a count greater than 47", {"count": "47"}),
        ("sort", "sort the sightings by count, highest first", {"column": "count"}),
    ],
)
async def test_datasette_filtered_and_sorted_by_its_form_and_headers(
    datasette: Running, settings: Settings, browser: Browser, task: str, command: str,
    values: dict[str, str],
) -> None:  # fmt: skip
    result = await run(command, datasette, "/field/sightings", settings, browser)
    assert result.status == "succeeded", result.answer
    assert SIGHTINGS[task].check(datasette, values, result.final_url), result.final_url


async def test_trac_adds_the_columns_filter_and_sets_its_comparison_and_value(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's filter of a column is added by choosing the column in "And"; its comparison
    starts at "contains" and is set to "is"."""
    result = await run("show the tickets where owner is dave", trac, "/query", settings, browser)
    assert result.status == "succeeded", result.answer
    assert {t["id"] for t in shown_tickets(trac, result.final_url)} == {"2", "5"}
    assert 'choose "is"' in (result.answer or "")


async def test_trac_sorted_by_a_column_header_clicked_until_the_address_says_descending(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    result = await run("sort the tickets by summary, z to a", trac, "/query", settings, browser)
    assert result.status == "succeeded", result.answer
    summaries = [t["Summary"] for t in shown_tickets(trac, result.final_url)]
    assert len(summaries) == 8 and summaries == sorted(summaries, reverse=True), summaries


async def test_a_list_with_no_filter_for_the_column_is_said_and_nothing_typed(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's query has no column "colour": the run fails saying what it looked for, and
    no field took the value (the form's other fields are not a filter's)."""
    result = await run("show the tickets where colour is red", trac, "/query", settings, browser)
    assert result.status == "failed"
    assert 'Could not find a filter for "colour"' in (result.answer or ""), result.answer
    assert "Nothing on the page was clicked or typed into" in (result.answer or "")
    assert "red" not in (result.final_url or "")


async def test_a_list_already_sorted_as_asked_is_left_as_it_is(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac says descending in a key of its own (desc=1): the header is not clicked again,
    which would turn the order round."""
    path = "/query?order=summary&desc=1"
    result = await run("sort the tickets by summary, z to a", trac, path, settings, browser)
    assert result.status == "succeeded", result.answer
    assert "click" not in (result.answer or ""), result.answer
    summaries = [t["Summary"] for t in shown_tickets(trac, result.final_url)]
    assert summaries == sorted(summaries, reverse=True), summaries


@pytest.mark.parametrize(
    ("app", "path", "command", "done"),
    [
        # a column of words is judged by the order of its letters
        ("datasette", "/field/sightings?_sort_desc=site", "sort the sightings by site, z to a",
         True),
        ("datasette", "/field/sightings?_sort=count", "sort the sightings by site, z to a", False),
        ("trac", "/query?order=summary&desc=1", "sort the tickets by summary, z to a", True),
        ("trac", "/query?order=priority", "sort the tickets by summary, z to a", False),
        # a word of the clause that is a whole cell is in every row
        ("datasette", "/field/sightings?species=kestrel&site=lagoon",
         "show the kestrel sightings at the lagoon", True),
        ("datasette", "/field/sightings", "show the kestrel sightings at the lagoon", False),
        ("trac", "/query?owner=dave&col=id&col=summary&col=owner",
         "show the tickets that dave owns", True),
        ("trac", "/query?col=id&col=summary&col=owner", "show the tickets that dave owns", False),
    ],
)  # fmt: skip
async def test_a_list_is_done_only_in_the_order_and_with_the_rows_the_command_names(
    app: str, path: str, command: str, done: bool, datasette: Running, trac: Running,
    page_session: BrowserSession,
) -> None:  # fmt: skip
    """Each application's own list, sorted or filtered by its address: the end check says
    done only where the page lists what the command names, on either application."""
    served = {"datasette": datasette, "trac": trac}[app]
    await open_url(f"{served.url}{path}")
    said = await end_state(page_session.current_page(), [], command=command)
    assert said.shown is done, said.said()


@pytest.mark.parametrize(
    ("line", "turns"),
    [
        ('[58] link "→"', True),  # Trac
        ('[58] link "Next »"', True),  # Redmine
        ('[58] link "next page"', True),  # MediaWiki's search
        ('[58] link "›" aria-label="Next page"', True),
        ('[58] link "2"', False),  # a page of its own, not the next one for sure
        ('[58] link "Next steps for the harbor"', False),  # a result that says next
    ],
)
def test_the_link_to_the_next_page_of_results_is_named_by_word_or_arrow(
    line: str, turns: bool
) -> None:
    page = parse_page(f'Page "Search" at http://127.0.0.1:1/search?q=x\n{line}')
    assert (next_page(page) is not None) == turns
