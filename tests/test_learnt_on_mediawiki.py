"""Each MediaWiki task (a real application: Debian's package, PHP, SQLite, on 127.0.0.1)
solved once by the offline planner from where a person starts (the front page; logged
out for the login) becomes a verified skill; a fresh instance is then done by the skill
with no model, and again after the wiki's admin switched its language to German. Success
is the wiki's own account (its database, session store and pages), never the product's.

With Trac (tests/test_apps_trac.py), these are the second application for the classes of
pages the harvest serves: the application's own links ("Log in", "Create", "Edit") as
fixed steps, a login that lasts as a skill, a create verified on fresh values, the page
the command names as the end (not an offer to create it), one value typed and clicked as
one parameter, two roads to the same results, and a control relabelled in another language
found again. Skipped where MediaWiki is not installed
(bash scripts/apps/install.sh mediawiki)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.skills.end_address import shows_the_same
from browser_agent.skills.end_state import end_state
from browser_agent.skills.primitive import open_url
from browser_agent.store.db import open_store
from scripts.apps import Running, Task, Values, load
from tests.served_site import PERSON_WAITS

pytestmark = pytest.mark.skipif(
    not Path("/usr/share/mediawiki/maintenance/install.php").exists(),
    reason="MediaWiki is not installed (bash scripts/apps/install.sh mediawiki)",
)
WIKI = load("mediawiki")
TASKS = {task.name: task for task in WIKI.tasks}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The suite's settings, with actions that wait as long as the product's default lets
    them: MediaWiki may take seconds to answer a form on a busy machine (a login hashes the
    password; a save writes the page), and the suite's 1.5 s is for its own pages' errors."""
    return settings.with_overrides(action_timeout_ms=DEFAULT_ACTION_MS)


DEFAULT_ACTION_MS = Settings.model_fields["action_timeout_ms"].default


@pytest.fixture
def wiki() -> Iterator[Running]:
    with WIKI.start() as app:
        yield app


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


def fresh_values(task: Task, rng: random.Random, wiki: Running, *seen: Values) -> Values:
    """Values of the task none of the earlier instances had."""
    values = task.generate(rng, wiki)
    while values in seen:
        values = task.generate(rng, wiki)
    return values


async def run(
    task: Task, values: Values, wiki: Running, settings: Settings, browser: Browser,
    monkeypatch: pytest.MonkeyPatch, planned: bool,
) -> RunResult:  # fmt: skip
    """The task's command from where it starts: planned by the offline planner, or with a
    model that must not be asked; its secrets given as a user gives them."""
    for name, value in task.secret_values(values).items():
        monkeypatch.setenv(f"BROWSER_AGENT_SECRET_{name}", value)
    return await run_command(
        task.command(values), OfflinePlanner() if planned else FunctionClient(no_llm),
        settings, start_url=wiki.url + task.start, browser=browser,
    )  # fmt: skip


@pytest.mark.parametrize("name", list(TASKS))
async def test_a_task_solved_once_is_done_by_its_skill_before_and_after_the_new_look(
    name: str, wiki: Running, settings: Settings, browser: Browser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    task, rng = TASKS[name], random.Random(name)
    if not task.logged_out:
        settings = settings.with_overrides(storage_state=wiki.storage_state)
    first = task.generate(rng, wiki)
    solved = await run(task, first, wiki, settings, browser, monkeypatch, planned=True)
    assert task.check(wiki, first, solved.final_url), (solved.final_url, solved.answer)
    engine = open_store(settings)
    try:
        (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    finally:
        engine.dispose()
    assert made.skill is not None and made.verified, made.error or made.verify_error

    seen = [first]
    for look in ("English", "German"):
        if look == "German":
            assert "German" in WIKI.new_look(wiki)
        values = fresh_values(task, rng, wiki, *seen)
        seen.append(values)
        before = wiki.state()
        routed = await run(task, values, wiki, settings, browser, monkeypatch, planned=False)
        assert routed.status == "succeeded" and routed.llm_calls == 0, (look, routed.answer)
        assert task.check(wiki, values, routed.final_url), (look, routed.final_url)
        after = wiki.state()
        assert {part for part in before if before[part] != after[part]} <= task.touches


@pytest.mark.parametrize(
    ("path", "title", "done"),
    [
        ("/index.php/Pump_Station", "Pump Station", True),
        ("/index.php?title=Pump_Station&action=history", "Pump Station", False),  # its history
        ("/index.php?title=Pump_Station_Two&action=edit", "Pump Station Two", False),  # editor
        ("/index.php/Pump_Station_Two", "Pump Station Two", False),  # no such page
        ("/index.php?search=Pump+Station+Two&title=Special%3ASearch&fulltext=1",
         "Pump Station Two", False),  # the search's offer to create it
    ],
)  # fmt: skip
async def test_only_the_page_named_is_the_end_of_opening_it(
    path: str, title: str, done: bool, wiki: Running, settings: Settings, browser: Browser
) -> None:
    """The page asked for, not its history, the offer to create it (the search's "Create
    the page" and the editor it leads to) or the wiki's "no text in this page"."""
    settings = settings.with_overrides(storage_state=wiki.storage_state)
    async with browser_session(settings, browser) as active:
        await open_url(wiki.url + path)
        said = await end_state(active.current_page(), [], command=f'open the wiki page "{title}"')
    assert said.shown is done, said.said()


async def test_a_setting_chosen_in_a_drop_down_is_done_once_saved(
    wiki: Running, settings: Settings, browser: Browser
) -> None:
    """MediaWiki's preferences draw their drop-downs (a combobox showing the option chosen,
    its options a listbox): neither is what the page says. Chosen and not saved is not
    done; saved, the fresh load of the page gives it back chosen, and the wiki keeps it."""
    command = 'set the thumbnail size to "180px"'
    settings = settings.with_overrides(storage_state=wiki.storage_state)
    async with browser_session(settings, browser) as active:
        await open_url(f"{wiki.url}/index.php?title=Special:Preferences#mw-prefsection-rendering")
        page = active.current_page()
        await page.locator("#mw-input-wpthumbsize .oo-ui-dropdownWidget-handle").click(
            timeout=PERSON_WAITS
        )
        option = page.locator(".oo-ui-menuOptionWidget:visible", has_text="180px")
        await option.click(timeout=PERSON_WAITS)
        chosen = await end_state(page, ["180px"], command=command)
        assert not chosen.shown and "it was not saved" in chosen.said(), chosen.said()
        async with page.expect_navigation(timeout=PERSON_WAITS):
            await page.get_by_role("button", name="Save").click(timeout=PERSON_WAITS)
        saved = await end_state(page, ["180px"], command=command)
        assert saved.shown, saved.said()
    kept = wiki_rows(wiki, "SELECT up_value FROM user_properties WHERE up_property = 'thumbsize'")
    assert kept == [("2",)]  # the third size offered


def wiki_rows(wiki: Running, sql: str) -> list[tuple]:
    """Rows of the wiki's own database."""
    with closing(sqlite3.connect(wiki.home / "data" / "wiki.sqlite", timeout=30)) as db:
        return db.execute(sql).fetchall()


async def test_the_same_results_by_another_road_are_the_same_end(
    wiki: Running, page_session: BrowserSession
) -> None:
    """MediaWiki's search box sends one form before the page's script is ready and another
    after: a replay that ended on the results for its term by the other address ended
    where the recorded run did; the results of another term did not."""
    page = page_session.current_page()
    recorded = "/index.php?search=sluice&title=Special%3ASearch&fulltext=1"
    example, used = {"term": "sluice"}, {"term": "gauge"}
    other_road = "/index.php?search=gauge&title=Special%3ASearch&profile=default&fulltext=1"
    await page.goto(wiki.url + other_road)
    assert await shows_the_same(page, other_road, recorded, example, used)
    elsewhere = "/index.php?search=ferry&title=Special%3ASearch&profile=default&fulltext=1"
    await page.goto(wiki.url + elsewhere)
    assert not await shows_the_same(page, elsewhere, recorded, example, used)
