"""The embedded planner's generic ways on an application shaped as larger ones are (the
tracker with ``full``): a control inside a menu that opens on click, a login form's fields
on the page it is on, the thing's own Edit rather than a sidebar's, a thing's link whose
name holds its title whole, a new thing offered by the site's search for its name, and a
search box the page swaps for another as one types. Success is the tracker's own state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.test_record import no_llm
from tests.tracker_site import ACCOUNTS, TrackerSite
from tests.wiki_site import WikiSite


@pytest.fixture
def tracker() -> Iterator[TrackerSite]:
    with TrackerSite(full=True) as site:
        yield site


@pytest.fixture
def wiki() -> Iterator[WikiSite]:
    with WikiSite() as site:
        yield site


async def run(
    command: str, settings: Settings, browser: Browser, start_url: str, **secrets: str
) -> RunResult:
    return await run_command(
        command, OfflinePlanner(), settings, start_url=start_url, browser=browser,
        secrets=secrets or None,
    )  # fmt: skip


async def test_a_control_inside_a_menu_is_reached_by_opening_the_menu(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """ "New issue" shows only once the header's "+" is clicked."""
    result = await run(
        'create an issue titled "Crash on start" with the description "It crashes."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    issue = tracker.by_subject("Crash on start")
    assert issue is not None and issue.description == "It crashes.", tracker.issues
    assert 'open the menu behind the link "+"' in (result.answer or "")


async def test_the_run_through_the_menu_is_learnt_and_creates_another_issue_with_no_model(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """The menu's "+" is a mark, not content: the harvest reads it as a fixed control of the
    site, a replay on a fresh title bears that out, and the skill creates the next issue."""
    done = await run(
        'create an issue titled "Crash on start" with the description "It crashes."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert done.status == "succeeded", done.answer
    engine = open_store(settings)
    (result,) = await harvest([Path(done.log_path)], settings, engine, browser=browser)
    assert result.skill is not None and result.verified, result.error or result.verify_error
    assert any("the link '+' read as a fixed control of the site: borne out" in r
               for r in result.readings), result.readings  # fmt: skip
    again = await run_command(
        'create an issue titled "Slow save" with the description "It takes long."',
        FunctionClient(no_llm), settings, start_url=f"{tracker.url}/", browser=browser,
        engine=engine,
    )  # fmt: skip
    assert again.status == "succeeded" and again.llm_calls == 0, again.answer
    issue = tracker.by_subject("Slow save")
    assert issue is not None and issue.description == "It takes long.", tracker.issues


async def test_a_field_read_before_adding_to_it_is_a_look_and_the_whole_edit_is_learnt(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    """The planner reads what the page's long text box holds before adding to it; that read
    decides nothing the skill does, so the skill goes on to the typing and the save, and
    adds fresh text to another page with no model."""
    wiki.pages["Gamma"] = "The river plan runs in three phases. " * 4  # shown cut short
    done = await run(
        'edit the page "Gamma" to add the text "Meet on Friday."', settings, browser,
        f"{wiki.url}/",
    )  # fmt: skip
    assert done.status == "succeeded", done.answer
    engine = open_store(settings)
    (result,) = await harvest([Path(done.log_path)], settings, engine, browser=browser)
    assert result.skill is not None and result.verified, result.error or result.verify_error
    assert result.skill.complete, result.skill.last_error
    before = wiki.pages["Delta"].replace("\r\n", "\n")
    again = await run_command(
        'edit the page "Delta" to add the text "Ship it on Monday."', FunctionClient(no_llm),
        settings, start_url=f"{wiki.url}/", browser=browser, engine=engine,
    )  # fmt: skip
    assert again.status == "succeeded" and again.llm_calls == 0, again.answer
    added = wiki.pages["Delta"].replace("\r\n", "\n")
    assert added.startswith(before) and added.endswith("Ship it on Monday."), added


async def test_a_login_link_in_a_menu_leads_to_a_form_filled_before_its_button(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """ "Sign in" is in the "Account" menu; the login page is titled like any other, and its
    "Login" button sends the form, so it is pressed only once the fields are filled."""
    result = await run(
        "log in as ada with the password {PASSWORD}", settings, browser, f"{tracker.url}/",
        PASSWORD=ACCOUNTS["ada"],
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert result.final_url == f"{tracker.url}/"
    assert ACCOUNTS["ada"] not in (result.answer or "")


async def test_the_things_own_edit_is_used_not_a_sidebars(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """The issue's page shows the sidebar's "Edit" first; the issue's goes on from its
    address."""
    result = await run(
        'edit the issue "Typo in footer" to add the text "Seen on every page."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert tracker.issues[2].description == "It says Copyrite. Seen on every page."
    assert tracker.sidebar == "Ask before a release."


async def test_a_link_whose_name_holds_the_title_whole_is_the_things_link(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """The search's result reads "Bug #2 (New): Typo in footer": its status says New, and it
    is still the issue's own link, not an offer to make one."""
    result = await run(
        'open the issue titled "Typo in footer"', settings, browser, f"{tracker.url}/issues/1"
    )
    assert result.status == "succeeded", result.answer
    assert result.final_url == f"{tracker.url}/issues/2"


async def test_a_new_thing_is_made_through_the_searchs_offer_to_create_it(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """No control makes a "report" (the "+" menu only offers a "New issue"); the search for
    its name offers to create it, and the form comes with its title given."""
    result = await run(
        'create a report titled "Slow start" with the description "It takes a minute."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    issue = tracker.by_subject("Slow start")
    assert issue is not None and issue.description == "It takes a minute.", tracker.issues


async def test_enter_goes_where_the_focus_is_when_the_page_swaps_the_search_box(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run("search for footer", settings, browser, f"{tracker.url}/")
    assert result.status == "succeeded", result.answer
    assert result.final_url == f"{tracker.url}/search?q=footer"
