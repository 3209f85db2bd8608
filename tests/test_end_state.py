"""Done means done: a finish or a skill's end is checked against the page it ends on.

Every value the command gave must be on the final page (its title, text, a field holding
it, its address), or the run ends *unverified*, never *succeeded*. A skill that types and
submits values is verified by a replay with fresh values of the same kind, since the
demonstration's own values already exist. Real Chromium, pages served on 127.0.0.1."""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.async_api import Browser
from sqlmodel import Session

from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.plans.plan import ByRoleName, ElementRecord, Param, PlannedStep
from browser_agent.settings import Settings
from browser_agent.skills.end_state import end_state
from browser_agent.skills.fresh import fresh_arguments, typed_only
from browser_agent.skills.primitive import open_url
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.store.skills import add_version, skill_by_name
from browser_agent.words.values import command_values, search_terms
from tests.scripted import calls_in_order, finish
from tests.stored_rows import clicking, opening, planned_skill

PAGES = Path(__file__).parent / "pages"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _serve(handler: type[BaseHTTPRequestHandler] | partial) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    """tests/pages served on 127.0.0.1."""
    yield from _serve(partial(_Quiet, directory=str(PAGES)))


async def test_the_end_state_is_what_the_page_shows(
    pages: str, page_session: BrowserSession
) -> None:
    await open_url(f"{pages}/wiki-index.html?q=blue+socks")
    page = page_session.current_page()
    for value in ("Alpha Page", "violet lamps", "blue socks", "index", "hidden garden"):
        shown = await end_state(page, [value])  # text, a field, the address, title, shadow
        assert shown.shown, shown.said()
    assert (await end_state(page, ["Gamma Page", "blue socks"])).shown  # one is enough
    missing = await end_state(page, ["Gamma Page", "Delta Page"])
    assert missing.missing == ("Gamma Page", "Delta Page")
    assert "does not show 'Gamma Page' or 'Delta Page'" in missing.said()
    await open_url(f"{pages}/search-said.html")  # a term held quoted, another only said
    said = page_session.current_page()
    assert (await end_state(said, [], searched=["violet lamps"])).shown
    unsearched = await end_state(said, [], searched=["blue socks"])
    assert unsearched.unsearched == ("blue socks",), unsearched.said()
    await open_url(f"{pages}/wiki-gamma.html")  # not there: an error page names it
    gone = await end_state(page_session.current_page(), ["wiki-gamma"])
    assert not gone.shown and gone.status == 404


def test_the_values_of_a_command() -> None:
    assert command_values('open the page titled "Beta Page"') == ["Beta Page"]
    assert command_values('log in with "{PASSWORD}"') == []
    # what the run typed that is words of the command: an unquoted search term
    assert command_values("search for trail shoes", ["trail shoes", "Enter"]) == ["trail shoes"]


def test_the_terms_a_command_searches_for() -> None:
    assert search_terms("search for trail shoes and sort by price low to high") == ["trail shoes"]
    assert search_terms('search the wiki for "asyncio.gather", then open it') == ["asyncio.gather"]
    assert search_terms("search for road shoes in the shop") == ["road shoes"]
    assert search_terms("find trail shoes in the shop") == []  # "find" may not be a search
    assert search_terms("research for me the price") == []
    assert search_terms("search for trail shoes, then open the first", ["Trail Shoes"]) == []


async def test_a_search_ends_on_the_results_of_its_term_not_of_one_of_its_words(
    demo: DemoSite, settings: Settings, browser: Browser
) -> None:
    """The category "Trail" lists trail shoes, and its page's text says "trail shoes", but
    it is the search for "Trail": a finish there is unverified; the real search succeeds."""
    command = "search for trail shoes and sort by price low to high"
    engine = open_store(settings)

    async def finish_on(url: str):  # type: ignore[no-untyped-def]
        done = finish("Sorted the trail shoes.")
        calls = calls_in_order(("open_url", {"url": url}), done, done)  # an unverified one: twice
        return await run_command(
            command, calls, settings, start_url=demo.url, browser=browser, engine=engine
        )

    category = await finish_on(f"{demo.url}/search?q=Trail&sort=price_asc")
    assert category.status == "unverified", category.answer
    assert "is not the results of a search for 'trail shoes'" in category.answer
    searched = await finish_on(f"{demo.url}/search?q=trail+shoes&sort=price_asc")
    assert searched.status == "succeeded", searched.answer
    typed = await run_command(  # typed, then gone on to a product page: the search was made
        command.replace("sort by price low to high", "open the first result"),
        calls_in_order(
            ("open_url", {"url": demo.url}),
            ("enter_text", {"selector": "#search-box", "text": "trail shoes", "press_enter": True}),
            ("open_url", {"url": f"{demo.url}/product/trail-blazer-2"}),
            finish("Opened the first trail shoe."),
        ),
        settings,
        start_url=demo.url,
        browser=browser,
        engine=engine,
    )
    assert typed.status == "succeeded", typed.answer


async def test_an_unverified_finish_is_said_back_once_and_the_rest_can_be_done(
    demo: DemoSite, settings: Settings, browser: Browser
) -> None:
    """A model that opens the category named by one word of the term and finishes is told
    why that page is not done (a call after that finish is not run); it then searches, and
    the run succeeds. The finish said back is no step of the run."""
    replies = iter(
        [
            [("open_url", {"url": f"{demo.url}/search?q=Trail"})],
            [finish("Found the trail shoes."), ("get_dom", {})],
            [
                (
                    "enter_text",
                    {"selector": "#search-box", "text": "trail shoes", "press_enter": True},
                )
            ],
            [finish("Searched for trail shoes.")],
        ]
    )
    answers: list[list[str]] = []

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        answers.append([m["content"] for m in messages if m["role"] == "tool"])
        calls = next(replies)
        return LLMReply(
            None,
            [ToolCall(f"c{len(messages)}_{i}", n, json.dumps(a)) for i, (n, a) in enumerate(calls)],
        )

    result = await run_command(
        "search for trail shoes",
        FunctionClient(model),
        settings,
        start_url=demo.url,
        browser=browser,
    )
    assert result.status == "succeeded", result.answer
    said, skipped = answers[2][-2:]
    assert said.startswith("Not finished: the final page ")
    assert "is not the results of a search for 'trail shoes'" in said
    assert said.endswith(
        "To search for 'trail shoes', type it into the site's search box with "
        "enter_text and press_enter true."
    )
    assert skipped == "Not executed: it came after a finish in the same answer."
    assert (result.steps, result.llm_calls) == (2, 4)


async def test_a_finish_on_another_page_than_named_ends_unverified(
    pages: str, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    command = 'open the page titled "Beta Page"'
    wrong = await run_command(
        command,
        calls_in_order(
            ("open_url", {"url": f"{pages}/wiki-alpha.html"}),
            finish("Opened it."),
            finish("Opened it."),  # the first is said back, the second ends the run
        ),
        settings,
        start_url=f"{pages}/wiki-index.html",
        browser=browser,
        engine=engine,
    )
    assert wrong.status == "unverified", wrong.answer
    assert wrong.llm_calls == 3
    assert "is not the page of 'Beta Page'" in wrong.answer
    with Session(engine) as db:
        kept = db.get(Run, wrong.run_id)
        assert kept is not None and kept.status == "unverified"
        assert kept.error and kept.error.startswith("The end state is unverified:")
    right = await run_command(
        command,
        calls_in_order(("open_url", {"url": f"{pages}/wiki-beta.html"}), finish("Opened it.")),
        settings,
        start_url=f"{pages}/wiki-index.html",
        browser=browser,
        engine=engine,
    )
    assert right.status == "succeeded", right.answer


OPEN_TITLED = '''
from typing import Annotated

from browser_agent.skills.runtime import Target, done, find
from browser_agent.skills.primitive import click, open_url

LINK = Target(
    step=2,
    selector="text=Alpha Page",
    role="link",
    name="Alpha Page",
    tag="a",
    intent="click on the link 'Alpha Page'",
)


async def open_titled(
    title: Annotated[str, "The page's title."], start_url: Annotated[str, "Start."] = ""
) -> str:
    """Open the page titled {title}."""
    await open_url(url=start_url)
    await click(selector=await find(LINK))
    return await done("Open the page titled {title}.", title=title)
'''


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def test_a_routed_skill_that_ends_on_another_page_than_named_ends_unverified(
    pages: str, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    start = f"{pages}/wiki-index.html"
    title = Param("title", "The page's title.", "Alpha Page")
    add_version(
        engine,
        planned_skill(
            "open_titled",
            "open the page titled {title}",
            [opening(start), clicking("text=Alpha Page", "link", "Alpha Page", "a")],
            params=[title],
            status="healthy",
            start_url=start,
            example_args=json.dumps({"title": "Alpha Page"}),
        ),
    )
    start = f"{pages}/wiki-index.html"
    asked = {"settings": settings, "start_url": start, "browser": browser, "engine": engine}
    right = await run_command("open the page titled Alpha Page", FunctionClient(no_llm), **asked)
    assert right.status == "succeeded" and right.llm_calls == 0, right.answer
    wrong = await run_command("open the page titled Beta Page", FunctionClient(no_llm), **asked)
    assert wrong.status == "unverified" and wrong.llm_calls == 0, wrong.answer
    assert "is not the page of 'Beta Page'" in wrong.answer
    skill = skill_by_name(engine, "open_titled")
    assert skill is not None and skill.failures == 1  # its end was another state: broken


class _Wiki(BaseHTTPRequestHandler):
    """A wiki that creates a page once: a second page of the same title is refused."""

    titles: set[str] = set()

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: str, status: int = 200) -> None:
        data = f"<!doctype html><html><head><title>Wiki</title></head><body>{body}"
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(data.encode())

    def _form(self, warning: str = "") -> None:
        self._send(
            f"<h1>New page</h1><p class='warning'>{html.escape(warning)}</p>"
            "<form method='post' action='/new'><label for='title'>Title</label>"
            "<input id='title' name='title'><button id='create'>Create page</button></form>"
        )

    def do_GET(self) -> None:
        slug = self.path.removeprefix("/page/")
        found = [t for t in self.titles if _slug(t) == slug]
        if found:
            self._send(f"<h1>{html.escape(found[0])}</h1><p>Created.</p>")
        else:
            self._form()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        title = parse_qs(self.rfile.read(length).decode()).get("title", [""])[0].strip()
        if not title or title in self.titles:
            self._form(f"A page titled {title} already exists.")
            return
        self.titles.add(title)
        self.send_response(303)
        self.send_header("Location", f"/page/{_slug(title)}")
        self.end_headers()


def _slug(title: str) -> str:
    return "-".join(re.sub(r"[\W_]+", " ", title.casefold()).split())


@pytest.fixture
def wiki() -> Iterator[str]:
    _Wiki.titles = set()
    yield from _serve(_Wiki)


async def test_a_create_skill_taught_once_is_verified_with_fresh_values(
    wiki: str, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    command = 'create a page titled "Velvet Tundra"'
    taught = await run_command(
        command,
        calls_in_order(
            ("open_url", {"url": f"{wiki}/new"}),
            ("enter_text", {"selector": "#title", "text": "Velvet Tundra"}),
            ("click", {"selector": "#create"}),
            finish("Created the page Velvet Tundra."),
        ),
        settings,
        start_url=f"{wiki}/new",
        browser=browser,
        engine=engine,
    )
    assert taught.status == "succeeded", taught.answer
    assert _Wiki.titles == {"Velvet Tundra"}
    (made,) = await harvest([Path(taught.log_path)], settings, engine, browser=browser)
    assert made.skill is not None, made.error
    assert made.verified and made.skill.status == "healthy", made.verify_error
    fresh = _Wiki.titles - {"Velvet Tundra"}
    assert len(fresh) == 1 and next(iter(fresh)).startswith("Velvet Tundra ")
    assert typed_only(made.skill.source)  # the title: typed, so replayed with a fresh one


class _NamedWiki(BaseHTTPRequestHandler):
    """A wiki whose pages are named in their address: /wiki/NAME offers "Create this page"
    until NAME is saved, then shows its text and no such button."""

    pages: dict[str, str] = {}

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        name = self.path.removeprefix("/wiki/")
        if name in self.pages:
            body = f"<h1>{html.escape(name)}</h1><p>{html.escape(self.pages[name])}</p>"
        else:
            body = (
                f"<h1>{html.escape(name)}</h1><p>The page does not exist.</p>"
                f"<form method='post' action='/wiki/{html.escape(name)}'>"
                "<textarea id='text' name='text'></textarea>"
                "<input type='submit' id='save' value='Create this page'></form>"
            )
        data = f"<!doctype html><html><head><title>Wiki</title></head><body>{body}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        text = parse_qs(self.rfile.read(length).decode()).get("text", [""])[0]
        self.pages.setdefault(self.path.removeprefix("/wiki/"), text)
        self.send_response(303)
        self.send_header("Location", self.path)
        self.end_headers()


async def test_a_page_named_in_its_address_is_verified_with_a_fresh_name(
    settings: Settings, browser: Browser
) -> None:
    """The demonstration created /wiki/VelvetTundra: replaying it there finds no "Create this
    page". The name the skill only quotes into the address it opens gets a fresh value."""
    _NamedWiki.pages = {}
    for wiki in _serve(_NamedWiki):
        engine = open_store(settings)
        taught = await run_command(
            'create a wiki page named VelvetTundra with the text "Runbook."',
            calls_in_order(
                ("open_url", {"url": f"{wiki}/"}),
                ("open_url", {"url": f"{wiki}/wiki/VelvetTundra"}),
                ("enter_text", {"selector": "#text", "text": "Runbook."}),
                ("click", {"selector": "#save"}),
                finish("Created the page VelvetTundra."),
            ),
            settings,
            start_url=wiki,
            browser=browser,
            engine=engine,
        )
        assert taught.status == "succeeded", taught.answer
        (made,) = await harvest([Path(taught.log_path)], settings, engine, browser=browser)
        assert made.skill is not None, made.error
        assert made.verified and made.skill.status == "healthy", made.verify_error
        fresh = set(_NamedWiki.pages) - {"VelvetTundra"}
        assert len(fresh) == 1 and next(iter(fresh)).startswith("VelvetTundra"), fresh
        assert _NamedWiki.pages[next(iter(fresh))].startswith("Runbook")


def test_fresh_values_only_for_what_a_skill_types() -> None:
    source = OPEN_TITLED.replace(
        "    await click(selector=await find(LINK))\n",
        "    await click(selector=await find(LINK))\n"
        "    await enter_text(selector='#c', text=comment)\n",
    ).replace("title: Annotated", "comment: str, count: int, title: Annotated")
    source = source.replace("title=title)", "title=title, comment=comment)")
    assert typed_only(source) == {"comment"}
    fresh = fresh_arguments(source, {"comment": "nice", "title": "Alpha Page", "start_url": "x"})
    assert fresh["title"] == "Alpha Page" and fresh["start_url"] == "x"
    assert fresh["comment"].startswith("nice") and fresh["comment"] != "nice"


async def test_a_removal_is_done_when_what_it_named_is_gone_from_its_page(
    pages: str, settings: Settings, browser: Browser
) -> None:
    """A removing command's end cannot show the name it removed: it is done when the box
    found by that name is gone from the page it was on, and unverified while it is shown."""
    engine = open_store(settings)
    start = f"{pages}/milestones.html"
    name = Param("milestone", "The milestone.", "Sprint 1")
    box = ElementRecord(
        'input[type="checkbox"][name="sel"][value="Sprint 1"]', "checkbox", "Sprint 1",
        "input", attributes={"name": "sel", "type": "checkbox", "value": "Sprint 1"},
    )  # fmt: skip
    check = PlannedStep("click", {"selector": ByRoleName("checkbox", name)}, {"selector": box})
    add_version(
        engine,
        planned_skill(
            "remove_milestone",
            'remove the milestone "{milestone}"',
            [opening(start), check, clicking("#remove", "button", "Remove selected", "button")],
            params=[name],
            status="healthy",
            start_url=start,
            example_args=json.dumps({"milestone": "Sprint 1"}),
        ),
    )  # fmt: skip
    asked = {"settings": settings, "browser": browser, "engine": engine}
    removed = await run_command(
        'remove the milestone "Sprint 2"', FunctionClient(no_llm), start_url=start, **asked
    )
    assert removed.status == "succeeded" and removed.llm_calls == 0, removed.answer
    assert "no longer on the page" in removed.answer
    stuck = await run_command(
        'remove the milestone "Sprint 3"', FunctionClient(no_llm), start_url=f"{start}?stuck",
        **asked,
    )  # fmt: skip
    assert stuck.status == "unverified" and stuck.llm_calls == 0, stuck.answer
    assert "still shows what it was to remove" in stuck.answer
