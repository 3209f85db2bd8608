"""A replay that ends on the page its recorded run ended on, by another address: the
site's search form now sends other options of its own, so the results of the same search
sit at an address without a key the recorded end had. The two addresses are read and
what they show compared; a page that shows something else is still another end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Browser, Page

from browser_agent.browser.session import BrowserSession
from browser_agent.settings import Settings
from browser_agent.skills.end_address import same_end, shows_the_same
from tests.test_speculated_readings import shown
from tests.wiki_site import WikiSite


@pytest.fixture
def wiki() -> Iterator[WikiSite]:
    with WikiSite(search_options={"fulltext": "Search"}) as site:
        yield site


async def test_a_search_whose_form_changed_its_options_is_verified_by_what_the_results_show(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{wiki.url}/")
        await page.get_by_role("searchbox").fill("river")
        await page.get_by_role("button", name="Search").click()
        await page.wait_for_url("**/search?q=river&fulltext=Search")

    changed = {"wprov": "acrw1"}  # the form the replays meet sends another option

    async def changed_form(page: Page) -> None:
        await person(page)
        wiki.search_options = changed

    result = await shown(wiki, settings, browser, "search the wiki for river", changed_form)
    assert result.verified, result.verify_error
    assert result.skill is not None and result.skill.expected_end == (
        "/search?q=river&fulltext=Search"
    )


async def test_another_address_that_shows_other_results_is_another_end(
    wiki: WikiSite, page_session: BrowserSession
) -> None:
    page = page_session.current_page()
    example, used = {"term": "river"}, {"term": "gamma"}
    await page.goto(f"{wiki.url}/search?q=gamma&wprov=acrw1")
    recorded = "/search?q=river&fulltext=Search"
    assert await shows_the_same(page, "/search?q=gamma&wprov=acrw1", recorded, example, used)
    assert page.url == f"{wiki.url}/search?q=gamma&fulltext=Search"
    await page.goto(f"{wiki.url}/search?q=delta&wprov=acrw1")  # not the term used
    assert not await shows_the_same(page, "/search?q=delta&wprov=acrw1", recorded, example, used)
    assert not await shows_the_same(page, "/wiki/Gamma", recorded, example, used)  # another path


def test_a_value_that_matched_a_word_of_the_sites_own_address_may_stay_there() -> None:
    """The command's word "wiki" was read as a link's name and also stands in the site's
    /wiki/ path: replayed with another link and a fresh page name, the end is the new
    page's address, with the site's /wiki/ as it was (whether the page shows the values
    given is the end check's to judge, see skills.end_state)."""
    example = {"link_name": "wiki", "page": "HarborSaffronWg57"}
    used = {"link_name": "About Trac", "page": "HarborSaffronWg57ab12c"}
    assert same_end("/wiki/HarborSaffronWg57ab12c", "/wiki/HarborSaffronWg57", example, used)
    assert not same_end("/wiki/OtherPage", "/wiki/HarborSaffronWg57", example, used)
    # the page given stays the example's: no value of the replay's shows, another end
    assert not same_end("/wiki/HarborSaffronWg57", "/wiki/HarborSaffronWg57", example, used)
    assert not same_end("/timeline", "/wiki/HarborSaffronWg57", example, used)
