"""A browser already running, named by its address: a DevTools port reached by a bare
``ws://HOST:PORT`` is driven over CDP; another ws:// address is left to Playwright's
``connect``; ``--browser-endpoint`` names it for one command."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import async_playwright
from typer.testing import CliRunner

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.browser.endpoint import cdp_address
from browser_agent.browser.session import launched_browser
from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.settings import Settings
from tests.postgres_server import free_port


@pytest_asyncio.fixture(loop_scope="session")
async def devtools_port() -> AsyncIterator[int]:
    """A Chromium of its own with a DevTools port open on 127.0.0.1."""
    port = free_port()
    async with async_playwright() as playwright:
        executable = find_chromium(None, playwright.chromium.executable_path)
        launched = await playwright.chromium.launch(
            executable_path=executable, args=[*LAUNCH_ARGS, f"--remote-debugging-port={port}"]
        )
        yield port
        await launched.close()


@pytest.fixture
def not_devtools() -> Iterator[int]:
    """A web server on 127.0.0.1 that knows no ``/json/version``, as a Playwright server."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.asyncio(loop_scope="session")
async def test_a_bare_ws_address_of_a_devtools_port_is_driven_over_cdp(
    devtools_port: int, settings: Settings, demo: DemoSite
) -> None:
    endpoint = f"ws://127.0.0.1:{devtools_port}"
    assert cdp_address(endpoint) == f"http://127.0.0.1:{devtools_port}"

    remote = settings.with_overrides(browser_endpoint=endpoint)
    async with launched_browser(remote) as browser:
        page = await browser.new_page()
        await page.goto(demo.url)
        assert "Shoe" in await page.title()
        await page.close()


def test_another_ws_address_is_a_playwright_server(not_devtools: int) -> None:
    assert cdp_address(f"ws://127.0.0.1:{not_devtools}") is None
    assert cdp_address(f"ws://127.0.0.1:{not_devtools}/3f2a9c") is None
    assert cdp_address("http://127.0.0.1:9222") == "http://127.0.0.1:9222"
    devtools_url = "ws://127.0.0.1:9222/devtools/browser/387adf4c"
    assert cdp_address(devtools_url) == devtools_url


def test_the_browser_endpoint_option_names_the_browser_for_one_command(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["--workspace", str(tmp_path), "--browser-endpoint", "ws://127.0.0.1:9", "info", "--json"],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["browser"] == "remote: ws://127.0.0.1:9"
