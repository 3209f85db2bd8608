"""Speculate, then let replays decide: a link the command does not name ("Log in", "Edit
this page", a search's only result) may be a fixed control of the site or one choice among
page content, and one demonstration cannot tell. The harvest keeps it as a fixed control,
names that reading in its report, and the verifying replay on fresh values decides: a
replay that gets past the link bears the reading out (the skill is routed), one that no
longer finds it refutes it (the skill is not verified, and says which step and why).

Shown once by a person (the recorder) on a small wiki served on 127.0.0.1; success is the
wiki's own state: its pages and who is logged in."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from browser_agent.harvest.harvester import HarvestResult, harvest
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.record.save import save_recording
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.test_record import demonstrate, no_llm
from tests.wiki_site import ACCOUNTS, WikiSite


@pytest.fixture
def wiki() -> Iterator[WikiSite]:
    with WikiSite() as site:
        yield site


async def shown(
    wiki: WikiSite, settings: Settings, browser: Browser, command: str, person, **secrets: str
) -> HarvestResult:  # type: ignore[no-untyped-def]
    """``person`` shows ``command`` once; the recording is harvested and verified."""
    recording = await demonstrate(browser, person, secrets=secrets or None)
    saved = save_recording(recording, command, settings, open_store(settings))
    (result,) = await harvest(
        [Path(saved.log_path)], settings, open_store(settings), browser=browser
    )
    assert result.error is None and result.skill is not None, result.error
    return result


async def routed(wiki: WikiSite, settings: Settings, browser: Browser, command: str) -> RunResult:
    """``command`` run from the wiki's front page with no model: only a skill can do it."""
    return await run_command(
        command,
        FunctionClient(no_llm),
        settings,
        start_url=f"{wiki.url}/",
        browser=browser,
        engine=open_store(settings),
    )


async def test_an_edit_through_the_pages_own_edit_link_is_borne_out_on_fresh_text(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/wiki/Gamma")
        await page.get_by_role("link", name="Edit this page").click()
        await page.fill("textarea", "Meet on Friday at noon.")
        await page.get_by_role("button", name="Save changes").click()
        await page.wait_for_url("**/wiki/Gamma")

    result = await shown(
        wiki, settings, browser, 'edit the page "Gamma" to add the text "Meet on Friday at noon."',
        person,
    )  # fmt: skip
    assert result.verified, result.verify_error
    (reading,) = result.readings
    assert reading == (
        "step 2: the link 'Edit this page' read as a fixed control of the site: borne out "
        "by a replay on fresh values"
    )
    run = await routed(
        wiki, settings, browser, 'edit the page "Delta" to add the text "Ship it on Monday."'
    )
    assert run.status == "succeeded", run.answer
    assert run.llm_calls == 0
    assert wiki.pages["Delta"] == "Ship it on Monday."


async def test_a_search_result_taken_for_a_fixed_control_is_refuted_by_a_fresh_term(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("searchbox").fill("hello")
        await page.keyboard.press("Enter")
        await page.get_by_role("link", name="Gamma").click()
        await page.wait_for_url("**/wiki/Gamma")

    result = await shown(
        wiki, settings, browser, 'search the wiki for "hello" and open the result', person
    )
    assert result.verified is False
    assert "the link 'Gamma' read as a fixed control of the site is refuted" in (
        result.verify_error or ""
    )
    (reading,) = result.readings
    assert reading.startswith(
        "step 3: the link 'Gamma' read as a fixed control of the site: refuted"
    )


async def test_a_login_through_the_front_pages_log_in_link_is_learnt_and_routed(
    settings: Settings, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The account must exist, so a fresh name cannot log in: the replay gets past the link
    all the same (the reading stands) and the skill is verified on the example's name. The
    site's address forwards to its front page: the skill starts where the person asked to
    go, so a run given that address is routed to it."""
    with WikiSite(front="/index.php/Main_Page") as wiki:
        await _login_learnt_and_routed(wiki, settings, browser, monkeypatch)


async def _login_learnt_and_routed(
    wiki: WikiSite, settings: Settings, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("link", name="Log in").click()
        await page.fill("input[name=user]", "ada")
        await page.fill("input[name=password]", ACCOUNTS["ada"])
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url(f"{wiki.url}/index.php/Main_Page")

    monkeypatch.setenv("BROWSER_AGENT_SECRET_WIKI_PW", ACCOUNTS["ada"])
    result = await shown(
        wiki, settings, browser, "log in as ada with password {WIKI_PW}", person,
        WIKI_PW=ACCOUNTS["ada"],
    )  # fmt: skip
    assert result.verified, result.verify_error
    assert result.readings[0].startswith(
        "step 2: the link 'Log in' read as a fixed control of the site: borne out"
    )
    run = await run_command(
        "log in as bob with password {WIKI_PW}",
        FunctionClient(no_llm),
        settings,
        start_url=f"{wiki.url}/",
        browser=browser,
        engine=open_store(settings),
        secrets={"WIKI_PW": ACCOUNTS["bob"]},
    )
    assert run.status == "succeeded", run.answer
    assert run.llm_calls == 0
    assert "bob" in wiki.sessions.values()


async def test_text_added_after_what_a_field_held_is_added_again_not_replaced(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    """The person types at the end of the page's text: the field then holds the old text
    and the command's value. The skill adds its value after what the field holds, on a
    line of its own, and keeps the old text, on every page it edits."""

    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/wiki/Gamma")
        await page.get_by_role("link", name="Edit this page").click()
        await page.locator("textarea").press("ControlOrMeta+End")
        await page.locator("textarea").press_sequentially("\nMeet on Friday.")
        await page.get_by_role("button", name="Save changes").click()
        await page.wait_for_url("**/wiki/Gamma")

    result = await shown(
        wiki, settings, browser, 'edit the page "Gamma" to add the text "Meet on Friday."', person
    )
    assert result.verified, result.verify_error
    assert "append=True" in (result.code or "")
    before = wiki.pages["Delta"]
    run = await routed(
        wiki, settings, browser, 'edit the page "Delta" to add the text "Ship it on Monday."'
    )
    assert (run.status, run.llm_calls) == ("succeeded", 0), run.answer
    assert wiki.pages["Delta"].replace("\r\n", "\n") == f"{before}\nShip it on Monday."


async def test_a_page_opened_by_its_name_is_replayed_on_another_page_the_site_listed(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("link", name="Gamma").click()
        await page.wait_for_url("**/wiki/Gamma")

    result = await shown(wiki, settings, browser, 'open the page "Gamma"', person)
    assert result.verified, result.verify_error
    assert result.readings == ["link_name: a value the site listed ('Delta') did the command too"]
    run = await routed(wiki, settings, browser, 'open the page "Epsilon"')
    assert run.status == "succeeded", run.answer
    assert run.llm_calls == 0


async def test_an_edit_that_works_only_on_the_demonstrated_page_keeps_that_page_literal(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    """Only Gamma can be edited: the edit shown on it does nothing on the other pages the
    front page lists, so the page is read as one the command names, not a choice: the
    skill edits Gamma, and "Gamma" stays in its template."""
    wiki.locked = {"Delta", "Epsilon"}

    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("link", name="Gamma").click()
        await page.get_by_role("link", name="Edit this page").click()
        await page.fill("textarea", "Meet on Friday at noon.")
        await page.get_by_role("button", name="Save changes").click()
        await page.wait_for_url("**/wiki/Gamma")

    command = 'open the page "Gamma" and edit it to add the text "Meet on Friday at noon."'
    result = await shown(wiki, settings, browser, command, person)
    assert result.verified, result.verify_error
    assert json.loads(result.skill.command_templates) == [
        'open the page "Gamma" and edit it to add the text "{text}"'
    ]
    assert any("link_name: refuted as a choice" in reading for reading in result.readings)
    assert wiki.pages["Delta"] == "Delta is the river plan."
    run = await routed(
        wiki,
        settings,
        browser,
        'open the page "Gamma" and edit it to add the text "Lunch moved to one."',
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert wiki.pages["Gamma"] == "Lunch moved to one."


async def test_a_command_word_read_as_a_menu_link_is_refuted_alone_and_the_page_kept_a_choice(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    """ "the wiki page" names the menu's Wiki link: replayed with the menu's other sections
    and the wiki's other pages together, the skill fails; changed one at a time, only the
    section fails, so "wiki" stays a word of the command and the page a parameter."""
    wiki.sections = True

    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("link", name="Wiki").click()
        await page.get_by_role("link", name="Gamma").click()
        await page.get_by_role("link", name="Edit this page").click()
        await page.fill("textarea", "Meet on Friday at noon.")
        await page.get_by_role("button", name="Save changes").click()
        await page.wait_for_url("**/wiki/Gamma")

    command = 'edit the wiki page "Gamma" to add the text "Meet on Friday at noon."'
    result = await shown(wiki, settings, browser, command, person)
    assert result.verified, result.verify_error
    (template,) = json.loads(result.skill.command_templates)
    assert template.startswith('edit the wiki page "{') and "Gamma" not in template, template
    assert any(r.endswith("did the command when changed alone") for r in result.readings)
    run = await routed(
        wiki, settings, browser, 'edit the wiki page "Delta" to add the text "Ship it on Monday."'
    )
    assert (run.status, run.llm_calls) == ("succeeded", 0), run.answer
    assert wiki.pages["Delta"].endswith("Ship it on Monday.")
