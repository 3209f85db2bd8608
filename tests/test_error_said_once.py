"""An error is said once: a page that cannot be opened ends the run with "Could not open
URL: why", not with the same words wrapped in themselves ("Could not open URL: Error:
Could not open URL: ..."), in the run's answer and in what ``run`` prints."""

from __future__ import annotations

import socket

from playwright.async_api import Browser

from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (taken from the system, then freed)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        return int(taken.getsockname()[1])


async def test_a_page_that_cannot_be_opened_is_said_once(
    settings: Settings, browser: Browser
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    run = await run_command(
        "open the page",
        OfflinePlanner(),
        settings,
        start_url=url,
        browser=browser,
        engine=open_store(settings),
    )
    assert run.status == "failed"
    assert run.answer.startswith(f"Could not open {url}: ")
    assert "ERR_CONNECTION_REFUSED" in run.answer
    assert run.answer.count("Could not open") == 1
    assert "Error:" not in run.answer
