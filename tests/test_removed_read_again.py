"""A removal ends away from the list it removed from (a milestone deleted from its own page
lands on the roadmap, found first among a search's results): the skill's end reads that
list again, in a tab of its own, and is done only when the thing is no longer there.
On a small wiki served on 127.0.0.1, whose search lists the pages holding a term."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import browser_session
from browser_agent.settings import Settings
from browser_agent.skills.answer import _gone
from tests.wiki_site import WikiSite


@pytest.fixture
def wiki() -> Iterator[WikiSite]:
    with WikiSite() as site:
        yield site


async def test_the_list_a_removed_thing_was_on_is_read_again(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    results = f"{wiki.url}/search?q=river"
    named = [(results, 'role=link[name="Delta"]')]
    async with browser_session(settings, browser) as active:
        page = active.current_page()
        await page.goto(results)
        await page.goto(f"{wiki.url}/")  # where the removal landed: not the results
        still = await _gone(page, named)
        assert still is not None and "still shows" in still
        del wiki.pages["Delta"]
        assert await _gone(page, named) is None
        assert active.current_page() is page and len(active.context.pages) == 1
        assert not any("new tab" in note for note in active.notes)
