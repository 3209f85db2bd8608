"""The console's browser session stays with the console: in a real Chromium that opened it,
another server on another port of 127.0.0.1 receives nothing that opens the console, and
two consoles on two ports are used side by side in one browser."""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, expect
from sqlmodel import Session, select

from browser_agent.settings import load_settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.testing.openai_server import LLMTestServer
from tests.test_console import (
    Served,
    csrf_of,
    llm_server,  # noqa: F401 (the model behind serve, a fixture)
    request,
    serving,
    visiting,
)

PAGE = b"<!doctype html><title>elsewhere</title><img src='/pixel.png'><p>logged</p>"


@pytest.fixture(scope="module")
def shared(
    tmp_path_factory: pytest.TempPathFactory,
    llm_server: LLMTestServer,  # noqa: F811
) -> Iterator[Served]:
    """One console for the tests that start no run."""
    with serving(tmp_path_factory.mktemp("console"), llm_server) as served:
        yield served


def session_of(console: Served) -> dict[str, str]:
    """The header the console's service worker adds to the browser's requests, as the
    first visit's page gives it to the worker."""
    connection = http.client.HTTPConnection(urlsplit(console.origin).netloc, timeout=30)
    connection.request("GET", urlsplit(console.url).path + "?" + urlsplit(console.url).query)
    html = connection.getresponse().read().decode()
    match = re.search(r"session=([\w-]+)", html)
    assert match, html
    return {"X-Console-Session": match.group(1)}


@dataclass
class Logger:
    """A server on another port of 127.0.0.1 that keeps the headers of every request."""

    origin: str
    seen: list[dict[str, str]] = field(default_factory=list)


@contextmanager
def logging_server() -> Iterator[Logger]:
    """The logger, serving one small page (with an image) at every path."""
    kept: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            kept.append(dict(self.headers.items()))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Logger(f"http://127.0.0.1:{server.server_address[1]}", kept)
    finally:
        server.shutdown()
        server.server_close()


def runs_in(workspace: Path) -> int:
    engine = open_store(load_settings().with_overrides(workspace=workspace))
    with Session(engine) as db:
        return len(db.exec(select(Run)).all())


def replays(seen: list[dict[str, str]], console: Served) -> list[dict[str, str]]:
    """Every way to hand the console what the logger received: each cookie as a cookie
    (under its name, and under the console's names) and as a bearer token, and every
    Cookie and Authorization header as it came."""
    values: set[tuple[str, str]] = set()
    raw: list[dict[str, str]] = []
    for headers in seen:
        for name, value in headers.items():
            if name.lower() in ("cookie", "authorization"):
                raw.append({name: value})
            if name.lower() == "cookie":
                jar = SimpleCookie()
                jar.load(value)
                values |= {(key, morsel.value) for key, morsel in jar.items()}
    port = urlsplit(console.origin).port
    tries = [*raw]
    for name, value in values:
        for named in {name, "browser_agent_console", f"browser_agent_console_{port}"}:
            tries.append({"Cookie": f"{named}={value}", "Origin": console.origin})
        tries.append({"Authorization": f"Bearer {value}"})
        tries.append({"X-Console-Session": value, "Origin": console.origin})
    return tries


async def test_another_server_on_the_host_receives_nothing_that_opens_the_console(
    browser: Browser,
    llm_server: LLMTestServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    with serving(tmp_path, llm_server) as console, logging_server() as logger:
        async with visiting(browser, console) as page:
            await expect(page.get_by_label("Command")).to_be_visible()
            await page.goto(f"{logger.origin}/after-the-console")
            await expect(page.locator("p")).to_have_text("logged")
            await page.goto(f"{console.origin}/runs")  # the person goes back: still in
            await expect(page.get_by_role("heading", name="Runs")).to_be_visible()
            await page.goto(f"{logger.origin}/again")
            await expect(page.locator("p")).to_have_text("logged")
        assert len(logger.seen) >= 4  # two pages, their images
        csrf = csrf_of(console)  # even with the form's token, as if it had leaked
        secrets = {console.token, session_of(console)["X-Console-Session"]}
        for headers in logger.seen:
            assert not any(secret in value for value in headers.values() for secret in secrets)
        for headers in replays(logger.seen, console):
            form = f"csrf={csrf}&command=search+for+shoes"
            assert request(console, "POST", "/runs/new", headers, form).status in (401, 403)
            assert request(console, "GET", "/runs", headers).status in (401, 403)
        assert runs_in(tmp_path) == 0


def test_the_session_opens_nothing_but_its_own_console_host(shared: Served) -> None:
    session = session_of(shared)
    value = session["X-Console-Session"]
    port = urlsplit(shared.origin).port
    assert port is not None
    assert request(shared, "GET", "/", session).status == 200
    assert request(shared, "GET", "/", {"Authorization": f"Bearer {value}"}).status == 401
    cookie = {"Cookie": f"browser_agent_console_{port}={value}"}
    assert request(shared, "GET", "/", cookie).status == 401
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}"):
        assert request(shared, "GET", "/", {**session, "Host": host}).status == 403
    assert request(shared, "GET", "/", {**session, "Host": f"localhost:{port}"}).status == 200


def test_a_browser_on_a_bare_url_is_told_in_one_line(shared: Served) -> None:
    connection = http.client.HTTPConnection(urlsplit(shared.origin).netloc, timeout=30)
    connection.request("GET", "/runs", headers={"Sec-Fetch-Mode": "navigate"})
    answer = connection.getresponse()
    assert answer.status == 401
    assert "open the URL that browser-agent serve printed" in answer.read().decode()


async def test_two_consoles_on_two_ports_stay_open_side_by_side(
    browser: Browser,
    llm_server: LLMTestServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    with (
        serving(tmp_path / "one", llm_server) as one,
        serving(tmp_path / "two", llm_server) as two,
    ):
        async with visiting(browser, one) as page:
            await page.goto(two.url)
            await page.wait_for_url(f"{two.origin}/")
            for console in (one, two, one, two):
                answer = await page.goto(f"{console.origin}/runs")
                assert answer is not None and answer.status == 200
                await expect(page.get_by_role("heading", name="Runs")).to_be_visible()
            await page.goto(f"{one.origin}/")
            await page.get_by_label("Command").fill("find shoes")
            await page.get_by_label("Start URL").fill("file:///etc/passwd")
            await page.get_by_role("button", name="Run").click()  # a POST through the session
            await expect(page.locator(".problem")).to_contain_text("file:")


def test_a_post_from_another_origin_is_refused_even_with_the_session_and_form_token(
    shared: Served,
) -> None:
    csrf = csrf_of(shared)
    session = session_of(shared)
    body = f"csrf={csrf}&command="  # an empty command: accepted, it only shows the form again
    assert request(shared, "POST", "/runs/new", session, body).status == 400
    evil = {**session, "Origin": "http://evil.example"}
    assert request(shared, "POST", "/runs/new", evil, body).status == 403
    fetched = {**session, "Sec-Fetch-Site": "cross-site"}
    assert request(shared, "POST", "/runs/new", fetched, body).status == 403
    same_site = {**session, "Sec-Fetch-Site": "same-site"}  # another port of 127.0.0.1
    assert request(shared, "POST", "/runs/new", same_site, body).status == 403


def test_a_post_without_the_form_token_is_refused(shared: Served) -> None:
    session = {**session_of(shared), "Origin": shared.origin}
    assert request(shared, "POST", "/runs/new", session, "command=").status == 403
    assert request(shared, "POST", "/runs/new", session, "csrf=wrong&command=").status == 403
