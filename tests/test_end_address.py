"""A search taught once keeps working when the page loses its search box (a new theme):
the address the search ended on, built from the command's values, is opened instead, with
no model, and the skill is still marked stale. Only a run that sent nothing to the site
gets that fallback: a form that posts (a search sent by POST, as a create form is) does
not. A person (Playwright) searches through the recorder on a small site on 127.0.0.1."""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Browser, Page

from browser_agent.browser.effects import SENT_DATA
from browser_agent.browser.session import BrowserSession
from browser_agent.harvest.harvester import plan_from
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.skills.primitive import enter_text, open_url
from browser_agent.store.db import open_store
from browser_agent.store.skills import skill_by_name
from tests.test_record import taught

POSTS = ["Harbour lights at dusk", "Quiet harbour mornings", "Mountain trail notes"]


class _Blog(BaseHTTPRequestHandler):
    """A blog whose home page has a search box until its theme changes (``plain``);
    ``method`` is how its search form sends the term (a POST redirects to the results)."""

    plain = False
    method = "get"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: str) -> None:
        data = f"<!doctype html><html><head><title>Blog</title></head><body>{body}</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(data.encode())

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        if parts.path == "/search":
            term = parse_qs(parts.query).get("s", [""])[0]
            found = [p for p in POSTS if term.casefold() in p.casefold()]
            items = "".join(f"<li>{html.escape(p)}</li>" for p in found)
            self._send(f"<h1>Results for &ldquo;{html.escape(term)}&rdquo;</h1><ul>{items}</ul>")
            return
        box = (
            f"<form role='search' method='{self.method}' action='/search'>"
            "<label for='s'>Search</label><input id='s' name='s' type='search'>"
            "<button>Search</button></form>"
        )
        self._send(f"<h1>Blog</h1>{'' if self.plain else box}<p>Welcome.</p>")

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        term = parse_qs(self.rfile.read(length).decode()).get("s", [""])[0]
        self.send_response(303)
        self.send_header("Location", "/search?s=" + term.replace(" ", "+"))
        self.end_headers()


@pytest.fixture
def blog() -> Iterator[str]:
    _Blog.plain, _Blog.method = False, "get"
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Blog)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def gives_up(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A model that ends the run at once, as unable to do it."""
    finish = ToolCall("f1", "finish", '{"answer": "No search box here.", "success": false}')
    return LLMReply(content=None, tool_calls=[finish])


async def _search_taught(blog: str, settings: Settings, browser: Browser):  # type: ignore[no-untyped-def]
    async def person(page: Page) -> None:
        await page.goto(blog)
        await page.fill("#s", "harbour")
        await page.press("#s", "Enter")
        await page.wait_for_url("**/search?s=harbour")

    engine = open_store(settings)
    _saved, result = await taught(browser, settings, engine, person, "search the blog for harbour")
    return engine, result


async def test_a_search_whose_box_is_gone_opens_its_results_address_with_no_model(
    blog: str, settings: Settings, browser: Browser
) -> None:
    engine, result = await _search_taught(blog, settings, browser)
    assert "async with by_address(" in result.skill.source
    _Blog.plain = True  # the new theme has no search box
    run = await run_command(
        "search the blog for mountain", FunctionClient(gives_up), settings, start_url=blog,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert urlsplit(run.final_url).path == "/search"
    assert parse_qs(urlsplit(run.final_url).query) == {"s": ["mountain"]}
    skill = skill_by_name(engine, result.skill.name)
    assert skill is not None and skill.status == "stale"  # its steps no longer fit
    again = await run_command(
        "search the blog for lights", FunctionClient(gives_up), settings, start_url=blog,
        browser=browser, engine=engine,
    )  # fmt: skip  # stale at a step its address does: still routed
    assert again.status == "succeeded" and again.llm_calls == 0, again.answer
    assert parse_qs(urlsplit(again.final_url).query) == {"s": ["lights"]}


async def test_a_search_sent_by_post_gets_no_address_to_fall_back_on(
    blog: str, settings: Settings, browser: Browser
) -> None:
    _Blog.method = "post"
    engine, result = await _search_taught(blog, settings, browser)
    assert "by_address" not in result.skill.source
    _Blog.plain = True
    run = await run_command(
        "search the blog for mountain", FunctionClient(gives_up), settings, start_url=blog,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert run.status != "succeeded" and run.llm_calls >= 1, run.answer


@pytest.mark.parametrize("method", ["get", "post"])
async def test_an_action_says_when_the_page_sent_data_to_the_site(
    method: str, blog: str, page_session: BrowserSession
) -> None:
    """The planner's primitives say it as the recorder does: a form posted is data sent
    (what keeps a run's end address from being a fallback), a search by GET is not."""
    _Blog.method = method
    await open_url(blog)
    said = await enter_text("#s", "harbour", press_enter=True)
    assert "/search?s=harbour" in said
    assert (SENT_DATA in said) == (method == "post"), said


async def test_a_log_that_does_not_say_what_it_sent_gets_no_address_to_fall_back_on(
    blog: str, settings: Settings, browser: Browser
) -> None:
    """Silence means nothing sent only in a log that says when something was: a run kept
    by an older release (its metadata without the mark), or another agent's log, says
    nothing either way, so it gets no fallback."""

    async def person(page: Page) -> None:
        await page.goto(blog)
        await page.fill("#s", "harbour")
        await page.press("#s", "Enter")
        await page.wait_for_url("**/search?s=harbour")

    saved, _result = await taught(
        browser, settings, open_store(settings), person, "search the blog for harbour"
    )
    log = Path(saved.log_path)
    assert plan_from(log).end_address is not None
    meta = log.with_suffix(".meta.json")
    kept = json.loads(meta.read_text(encoding="utf-8"))
    del kept["sent_data_said"]
    meta.write_text(json.dumps(kept), encoding="utf-8")
    assert plan_from(log).end_address is None
