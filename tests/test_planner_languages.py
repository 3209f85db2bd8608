"""The embedded planner looks for a site's controls in the page's own language: a page whose
``lang`` says German is read with the German words for "New", "Edit", "Save", "Delete" and
its fields' labels after the English ones. The tracker of the tests, its words in German,
on 127.0.0.1; success is the tracker's own state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession
from browser_agent.llm.offline.languages import also, relabelled
from browser_agent.llm.offline.menus import next_menu
from browser_agent.llm.offline.page import parse_page
from browser_agent.settings import Settings
from browser_agent.skills.primitive import get_dom, open_url
from tests.offline_runs import run
from tests.tracker_site import TrackerSite


@pytest.fixture
def tracker() -> Iterator[TrackerSite]:
    with TrackerSite(lang="de") as site:
        yield site


def test_the_pages_language_is_read_from_its_header() -> None:
    page = parse_page('Page "Meldungen" at http://127.0.0.1:1/ (language: de)\n[3] link "X"')
    assert (page.url, page.lang, page.title) == ("http://127.0.0.1:1/", "de", "Meldungen")
    assert parse_page('Page "Issues" at http://127.0.0.1:1/\n').lang == ""


def test_the_languages_words_come_after_the_english_ones() -> None:
    assert also(("new", "create"), "de-AT")[:2] == ("new", "create")
    assert "neue" in also(("new",), "de") and "nouvelle" in also(("new",), "fr")
    assert "eliminar" in also(("delete",), "es")
    assert also(("new", "edit"), "") == also(("new", "edit"), "en") == ("new", "edit")
    assert also(("new",), "ja") == ("new",)  # a language the table does not hold
    assert "passwort {PASSWORD}" in relabelled("password {PASSWORD}", "de")


async def test_get_dom_says_the_pages_language_when_not_english(
    page_session: BrowserSession, tracker: TrackerSite
) -> None:
    await open_url(f"{tracker.url}/")
    assert (await get_dom()).splitlines()[
        0
    ] == f'Page "Issues · Tracker" at {tracker.url}/ (language: de)'
    tracker.lang = "en"
    await open_url(f"{tracker.url}/")
    assert (await get_dom()).splitlines()[0] == f'Page "Issues · Tracker" at {tracker.url}/'


async def test_an_issue_is_created_through_the_german_controls(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """ "+ Neue Meldung", "Betreff", "Beschreibung", "Priorität", "Absenden"."""
    result = await run(
        'create an issue titled "Absturz beim Start" with the description "Er stürzt ab." '
        "and priority High",
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    issue = tracker.by_subject("Absturz beim Start")
    assert issue is not None, tracker.issues
    assert (issue.description, issue.priority) == ("Er stürzt ab.", "High")


async def test_an_issue_is_edited_and_removed_through_the_german_controls(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    """ "Bearbeiten", "Änderungen speichern"; "Meldung löschen" and the site's own dialog."""
    result = await run(
        'edit the issue "Typo in footer" to add the text "Auf jeder Seite."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert tracker.issues[2].description == "It says Copyrite. Auf jeder Seite."
    result = await run(
        'delete the issue "Typo in footer" and confirm', settings, browser, f"{tracker.url}/"
    )
    assert result.status == "succeeded", result.answer
    assert tracker.by_subject("Typo in footer") is None and len(tracker.issues) == 1


async def test_a_control_the_site_lacks_is_said_with_the_words_looked_for_in_both_languages(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'archive the issue "Typo in footer"', settings, browser, f"{tracker.url}/issues/2"
    )
    assert result.status == "failed"
    assert (
        f'No control to archive the issue "Typo in footer" on {tracker.url}/issues/2: looked '
        "for links or buttons named Archive, Archivieren; show the way once with "
        "`browser-agent record`"
    ) in (result.answer or "")
    assert len(tracker.issues) == 2


def test_a_menu_named_in_the_pages_language_is_opened_for_what_it_may_hold() -> None:
    """MediaWiki in German names its personal menu "Meine Werkzeuge" (a see-through
    checkbox over its name): a menu, as "Personal tools" is."""
    page = parse_page(
        'Page "Wiki" at http://127.0.0.1:1/ (language: de)\n'
        '[28] button "Meine Werkzeuge" id=p-personal-checkbox type=checkbox (unchecked)\n'
        '[30] "Meine Werkzeuge"\n[55] link "Hauptseite"'
    )
    menu = next_menu(page, [])
    assert menu is not None and menu.name == "Meine Werkzeuge"
