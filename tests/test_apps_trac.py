"""A real web application: Trac (from PyPI, in its own virtualenv) served on 127.0.0.1.

The app starts from nothing and leaves nothing running; each task's check, which reads
Trac's own database or pages, is false before the task and true once a person (Playwright)
has done it; and one learning round (the offline planner, harvested) gives a skill a fresh
instance is routed to with no model, done by Trac's own account of it."""

from __future__ import annotations

import random
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.browser.chromium import find_chromium
from browser_agent.browser.session import browser_session
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import run_command
from browser_agent.planner.router import route
from browser_agent.plans.export import exported_script
from browser_agent.settings import Settings
from browser_agent.skills.end_state import end_state
from browser_agent.skills.primitive import open_url
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from scripts.apps import Running, Task, load
from tests.served_site import PERSON_WAITS

TRAC = load("trac")
TASKS = {task.name: task for task in TRAC.tasks}


@pytest.fixture(scope="module")
def trac() -> Iterator[Running]:
    with TRAC.start() as app:
        yield app


def answers(url: str) -> bool:
    """True when something accepts connections at the URL's port of 127.0.0.1."""
    port = int(url.rsplit(":", 1)[1])
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_trac_starts_seeded_with_the_admin_logged_in_and_stops_without_a_trace() -> None:
    with TRAC.start() as app:
        home, url = app.home, app.url
        assert answers(url)
        front = app.get(f"{url}/ticket/1")
        assert "logged in as" in front and "admin" in front
        assert len(app.state()["ticket"]) == 8
    assert not answers(url)
    assert not Path(home).exists()


@pytest.mark.parametrize("name", list(TASKS))
async def test_a_task_check_is_false_before_and_true_after_doing_it_by_hand(
    name: str, trac: Running, browser: Browser
) -> None:
    task: Task = TASKS[name]
    values = task.generate(random.Random(name), trac)
    assert not task.check(trac, values, None)
    before = trac.state()
    context = await browser.new_context(storage_state=str(trac.storage_state))
    try:
        page = await context.new_page()
        await task.person(page, trac, values)
        final_url = page.url
    finally:
        await context.close()
    assert task.check(trac, values, final_url), (task.command(values), final_url)
    after = trac.state()
    changed = {part for part in before if before[part] != after[part]}
    assert changed <= task.touches


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def test_search_solved_by_the_planner_then_a_fresh_instance_routed_to_its_skill(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    task, rng = TASKS["search"], random.Random(7)
    settings = settings.with_overrides(storage_state=trac.storage_state)
    engine = open_store(settings)
    first = task.generate(rng, trac)
    solved = await run_command(
        task.command(first), OfflinePlanner(), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert task.check(trac, first, solved.final_url), solved.answer
    (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    fresh = task.generate(rng, trac)
    while fresh == first:
        fresh = task.generate(rng, trac)
    routed = await run_command(
        task.command(fresh), FunctionClient(no_llm), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert task.check(trac, fresh, routed.final_url), (routed.final_url, routed.answer)

    # exported as a plain Playwright script, run in a fresh process on another fresh value
    script = settings.workspace / "exported.py"
    script.write_text(exported_script(engine, made.skill.name), encoding="utf-8")
    other = task.generate(rng, trac)
    while other in (first, fresh):
        other = task.generate(rng, trac)
    found = route(task.command(other), current_skills(open_store(settings)))
    assert found is not None
    options = ["--start-url", trac.url, "--storage-state", str(trac.storage_state)]
    for name, value in found.arguments.items():
        options += ["--" + name.replace("_", "-"), str(value)] if name != "start_url" else []
    chromium = find_chromium(None, None, headless=True)
    options += ["--executable-path", str(chromium)] if chromium else []
    done = subprocess.run(
        [sys.executable, str(script), *options], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "browser_agent" not in script.read_text(encoding="utf-8")
    assert task.check(trac, other, done.stdout.strip().splitlines()[-1]), done.stdout


async def test_the_planner_turns_the_pages_of_results_to_find_the_thing_to_remove(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's search for "Sprint 4" lists Sprints 54 to 41 first and "Milestone Sprint 4" on
    its second page: the planner turns the page, opens the milestone and deletes it. The
    page turn, read as a fixed step, is refuted by a replay on a milestone the search lists
    on its first page: harvested again without it, the skill is verified."""
    task, values = TASKS["remove-milestone"], {"name": "Sprint 4"}
    assert not task.check(trac, values, None)  # it is there
    # the product's own wait for a control (Trac's confirmation page comes slowly under load)
    settings = settings.with_overrides(storage_state=trac.storage_state, action_timeout_ms=5_000)
    result = await run_command(
        task.command(values), OfflinePlanner(), settings, start_url=trac.url, browser=browser
    )
    assert result.status == "succeeded", result.answer
    assert "on the next page of results" in (result.answer or ""), result.answer
    assert task.check(trac, values, result.final_url), result.answer
    engine = open_store(settings)
    # the replays that refute the page turn wait for a link the first page does not show;
    # the elements that are there come whole with Trac's pages and are found at once
    refuting = settings.with_overrides(action_timeout_ms=3_000)
    (made,) = await harvest([Path(result.log_path)], refuting, engine, browser=browser)
    assert made.skill is not None and made.verified, made.readings
    assert any("only the demonstration's values needed it" in d for d in made.dropped)


async def test_a_removal_through_the_search_is_learnt_on_a_milestone_the_site_lists(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """The planner removes "Sprint 6" through Trac's search, which lists Sprints 60, 56, 46,
    36, 26 and 16 above it; the milestone is gone, so the skill is replayed on one the
    search listed beside it up to its removing step, which is held back (no other
    milestone is removed), and a fresh removal is routed to it with no model."""
    task = TASKS["remove-milestone"]
    settings = settings.with_overrides(storage_state=trac.storage_state)
    engine = open_store(settings)
    solved = await run_command(
        task.command({"name": "Sprint 6"}), OfflinePlanner(), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert task.check(trac, {"name": "Sprint 6"}, solved.final_url), solved.answer
    milestones = trac.state()["milestone"]
    (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    assert trac.state()["milestone"] == milestones  # checked on one, up to its removal
    routed = await run_command(
        task.command({"name": "Sprint 27"}), FunctionClient(no_llm), settings,
        start_url=trac.url, browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert task.check(trac, {"name": "Sprint 27"}, routed.final_url), routed.answer
    # "Sprint 3" is listed on the search's second page, after Sprints 53 to 31: the skill
    # turns the page as a person does
    routed = await run_command(
        task.command({"name": "Sprint 3"}), FunctionClient(no_llm), settings,
        start_url=trac.url, browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert "on page 2 of the results" in (routed.answer or ""), routed.answer
    assert task.check(trac, {"name": "Sprint 3"}, routed.final_url), routed.answer


async def test_a_wiki_page_is_made_at_its_own_address_learnt_and_made_again_with_no_model(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac has no "New page" control: a page is made by opening its address. The planner
    finds no control, searches (no offer to create), then opens the page's address made as
    the site makes the addresses of wiki pages (/wiki, then the name), where Trac offers
    "Create this page"; the run is learnt and a fresh page made with no model."""
    task = TASKS["wiki-page"]
    first = {"page": "HarborSaffronWg57", "text": "The glacier runbook lives here."}
    settings = settings.with_overrides(storage_state=trac.storage_state)
    engine = open_store(settings)
    solved = await run_command(
        task.command(first), OfflinePlanner(), settings, start_url=trac.url, browser=browser,
        engine=engine,
    )  # fmt: skip
    assert solved.status == "succeeded", solved.answer
    assert "where this site keeps a wiki page by its name" in (solved.answer or "")
    assert task.check(trac, first, solved.final_url), solved.answer
    (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    fresh = {"page": "TundraCedarQx31", "text": "The tundra runbook lives here."}
    routed = await run_command(
        task.command(fresh), FunctionClient(no_llm), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert task.check(trac, fresh, routed.final_url), routed.answer


async def test_a_setting_is_found_on_tracs_own_preferences_and_saved(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """ "set my email address to X": no field for it where the run starts, so the planner
    opens the site's Preferences, writes it in "Email address" and saves; Trac keeps it."""
    settings = settings.with_overrides(storage_state=trac.storage_state)
    result = await run_command(
        "set my email address to ada.k@example.org", OfflinePlanner(), settings,
        start_url=f"{trac.url}/wiki", browser=browser,
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    kept = trac_rows(
        trac, "SELECT value FROM session_attribute WHERE sid = 'admin' AND name = 'email'"
    )
    assert kept == [("ada.k@example.org",)]


async def test_a_setting_typed_but_not_saved_is_not_done_and_once_saved_is(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's preferences keep the address in their field before "Save changes" and after
    it: a fresh load of the page decides. Typed only, Trac gives back the old address and
    the command is not done; saved, Trac gives it back and it is."""
    value = "kit.r@example.org"
    command = f"set my email address to {value}"
    settings = settings.with_overrides(storage_state=trac.storage_state)
    async with browser_session(settings, browser) as active:
        await open_url(f"{trac.url}/prefs")
        page = active.current_page()
        await page.fill("#email", value)
        typed = await end_state(page, [value], command=command)
        assert not typed.shown and "it was not saved" in typed.said(), typed.said()
        async with page.expect_navigation(timeout=PERSON_WAITS):
            await page.click("input[type=submit][value='Save changes']", timeout=PERSON_WAITS)
        saved = await end_state(page, [value], command=command)
        assert saved.shown, saved.said()
    kept = trac_rows(
        trac, "SELECT value FROM session_attribute WHERE sid = 'admin' AND name = 'email'"
    )
    assert kept == [(value,)]


async def test_a_setting_chosen_in_a_drop_down_is_done_once_saved_and_not_by_being_offered(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's date format is chosen in a drop-down that offers every format: the option
    offered is not the page saying it, chosen and not saved is not done, and saved (the
    page's fresh load gives it back chosen) is."""
    command = 'set the date format to "ISO 8601 format"'
    settings = settings.with_overrides(storage_state=trac.storage_state)
    async with browser_session(settings, browser) as active:
        await open_url(f"{trac.url}/prefs/localization")
        page = active.current_page()
        offered = await end_state(page, ["ISO 8601 format"], command=command)
        assert not offered.shown, offered.said()
        await page.select_option("select[name=lc_time]", "iso8601")
        chosen = await end_state(page, ["ISO 8601 format"], command=command)
        assert not chosen.shown and "it was not saved" in chosen.said(), chosen.said()
        async with page.expect_navigation(timeout=PERSON_WAITS):
            await page.click("input[type=submit][value='Save changes']", timeout=PERSON_WAITS)
        saved = await end_state(page, ["ISO 8601 format"], command=command)
        assert saved.shown, saved.said()
    kept = trac_rows(
        trac, "SELECT value FROM session_attribute WHERE sid = 'admin' AND name = 'lc_time'"
    )
    assert kept == [("iso8601",)]


@pytest.mark.parametrize(
    ("path", "title", "done"),
    [
        ("/wiki/TracGuide", "TracGuide", True),
        ("/wiki/TracGuide?action=history", "TracGuide", False),  # its history
        ("/wiki/HarborLog37", "HarborLog37", False),  # no such page: an offer to create it
        ("/wiki/HarborLog37?action=edit", "HarborLog37", False),  # the editor of a new page
        ("/search?q=HarborLog37&wiki=on", "HarborLog37", False),  # a search for it
    ],
)
async def test_only_the_page_named_is_the_end_of_opening_it(
    path: str, title: str, done: bool, trac: Running, settings: Settings, browser: Browser
) -> None:
    """The wiki page asked for, not its history, Trac's "does not exist" with its offer to
    create it, the editor that offer leads to, or a search for its name."""
    settings = settings.with_overrides(storage_state=trac.storage_state)
    async with browser_session(settings, browser) as active:
        await open_url(trac.url + path)
        said = await end_state(active.current_page(), [], command=f'open the wiki page "{title}"')
    assert said.shown is done, said.said()


def trac_rows(trac: Running, sql: str, *args: object) -> list[tuple]:
    """Rows of Trac's own database."""
    with closing(sqlite3.connect(trac.home / "env/db/trac.db", timeout=30)) as db:
        return db.execute(sql, args).fetchall()


async def test_a_thing_named_without_quotes_is_made_learnt_and_made_again_with_no_model(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """ "add a milestone Release4821": the word after the kind is the new milestone's name,
    not part of its kind; the planner makes it where Trac keeps milestones, the run is
    learnt, and "add a milestone Harbor77" is made by the skill with no model."""
    settings = settings.with_overrides(storage_state=trac.storage_state)
    engine = open_store(settings)
    solved = await run_command(
        "add a milestone Release4821", OfflinePlanner(), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert solved.status == "succeeded", solved.answer
    assert trac_rows(trac, "SELECT 1 FROM milestone WHERE name = 'Release4821'"), solved.answer
    (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    routed = await run_command(
        "add a milestone Harbor77", FunctionClient(no_llm), settings, start_url=trac.url,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert trac_rows(trac, "SELECT 1 FROM milestone WHERE name = 'Harbor77'"), routed.answer


async def test_a_value_the_form_already_shows_is_learnt_as_the_commands_and_routed_for_another(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's new ticket shows the priority "major" already; a command that asks for it
    still chooses it, so the skill learnt from the run takes the priority as a parameter
    and a ticket of priority "critical" is made by the skill with no model."""
    settings = settings.with_overrides(storage_state=trac.storage_state)
    engine = open_store(settings)
    command = 'create a ticket titled "{0}" with the description "{1}" and the priority {2}'
    solved = await run_command(
        command.format("Glacier pump 41", "It hums.", "major"), OfflinePlanner(), settings,
        start_url=trac.url, browser=browser, engine=engine,
    )  # fmt: skip
    assert solved.status == "succeeded", solved.answer
    (made,) = await harvest([Path(solved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    routed = await run_command(
        command.format("Tundra valve 77", "It drips.", "critical"), FunctionClient(no_llm),
        settings, start_url=trac.url, browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    kept = trac_rows(trac, "SELECT priority FROM ticket WHERE summary = 'Tundra valve 77'")
    assert kept == [("critical",)], routed.answer
