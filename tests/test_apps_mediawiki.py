"""A real web application: MediaWiki (Debian's package, PHP, SQLite) served on 127.0.0.1.

Each task's check, which reads the wiki's own database, session store or pages, is false
before the task and true once a person (Playwright) has done it from the front page; the
new look (German) shows at once, logged in or not; near misses (a page's editor, an old revision, a
page that does not exist, another search) are refused. Skipped where MediaWiki is not
installed (bash scripts/apps/install.sh mediawiki)."""

from __future__ import annotations

import json
import os
import random
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from scripts.apps import Running, Task, cookie_header, http_get, load

pytestmark = pytest.mark.skipif(
    not Path("/usr/share/mediawiki/maintenance/install.php").exists(),
    reason="MediaWiki is not installed (bash scripts/apps/install.sh mediawiki)",
)
WIKI = load("mediawiki")
TASKS = {task.name: task for task in WIKI.tasks}


@pytest.fixture(scope="module")
def wiki() -> Iterator[Running]:
    with WIKI.start() as app:
        yield app


async def by_hand(app: Running, browser: Browser, task: Task, values: dict[str, str]) -> str:
    """The task done by a person from where its command starts; the final address."""
    state = None if task.logged_out else str(app.storage_state)
    context = await browser.new_context(storage_state=state)
    try:
        page = await context.new_page()
        await page.goto(app.url + task.start)
        await task.person(page, app, values)
        return page.url
    finally:
        await context.close()


async def test_each_check_is_false_before_and_true_after_a_person_did_it(
    wiki: Running, browser: Browser
) -> None:
    rng = random.Random(37)
    for task in WIKI.tasks:
        values = task.generate(rng, wiki)
        assert not task.check(wiki, values, None), task.name
        before = wiki.state()
        final_url = await by_hand(wiki, browser, task, values)
        assert task.check(wiki, values, final_url), (task.command(values), final_url)
        after = wiki.state()
        assert {part for part in before if before[part] != after[part]} <= task.touches


def test_the_new_look_is_german_for_everyone_at_once(wiki: Running) -> None:
    settings = wiki.home / "LocalSettings.php"
    old = time.time() - 60
    os.utime(settings, (old, old))  # written a while ago, as a running wiki's settings are
    assert 'lang="en"' in wiki.get(f"{wiki.url}/index.php/Main_Page")
    assert "German" in WIKI.new_look(wiki)  # right after a page was served in English
    for page in (wiki.get(f"{wiki.url}/index.php/Main_Page"),
                 http_get(f"{wiki.url}/index.php/Main_Page")):  # fmt: skip
        assert 'lang="de"' in page and "Bearbeiten" in page


def test_near_misses_of_a_page_and_of_a_search_are_refused(wiki: Running) -> None:
    page, search = TASKS["open-page"], TASKS["search"]
    address = f"{wiki.url}/index.php?title=Pump_Station"
    assert page.check(wiki, {"title": "Pump Station"}, address)
    assert not page.check(wiki, {"title": "Pump Station"}, address + "&action=edit")
    assert not page.check(wiki, {"title": "Pump Station"}, address + "&oldid=1")
    assert not page.check(wiki, {"title": "Night Shift"}, address)
    missing = f"{wiki.url}/index.php/Pump_Station_Two"
    assert not page.check(wiki, {"title": "Pump Station Two"}, missing)
    results = f"{wiki.url}/index.php?title=Special%3ASearch&fulltext=1&search="
    assert search.check(wiki, {"term": "sluice"}, results + "sluice")
    assert not search.check(wiki, {"term": "sluice"}, results + "gauge")
    assert not search.check(wiki, {"term": "sluice"}, results + "lifts")  # same page listed
    assert not search.check(wiki, {"term": "sluice"}, f"{wiki.url}/index.php/Pump_Station")


def test_an_edit_that_replaced_the_page_is_not_an_addition(wiki: Running) -> None:
    edit = TASKS["edit-page"]
    text = "Checked by the amber crew zz11."
    token = wiki.get(f"{wiki.url}/api.php?action=query&meta=tokens&format=json")
    csrf = json.loads(token)["query"]["tokens"]["csrftoken"]
    post(wiki, {"action": "edit", "title": "Tide Tables", "text": text, "token": csrf})
    assert not edit.check(wiki, {"title": "Tide Tables", "text": text}, None)
    post(wiki, {"action": "edit", "title": "Safety Notes", "appendtext": f"\n\n{text}",
                "token": csrf})  # fmt: skip
    assert edit.check(wiki, {"title": "Safety Notes", "text": text}, None)


def post(app: Running, form: dict[str, str]) -> None:
    """A form sent to the wiki's API as the admin."""
    request = urllib.request.Request(
        f"{app.url}/api.php",
        urllib.parse.urlencode({**form, "format": "json"}).encode(),
        headers={"Cookie": cookie_header(app.storage_state)},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        said = json.loads(response.read().decode())
    assert said.get("edit", {}).get("result") == "Success", said
