"""Watches in the web console, in a real Chromium against a real serve process: listed,
paused, resumed and removed with the page's buttons, and the due ones checked by the
server while it runs."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.async_api import Browser, expect

from browser_agent.demo_site import DemoSite
from browser_agent.settings import load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.watches import all_watches, checks_of, find_watch
from browser_agent.testing.openai_server import LLMTestServer
from browser_agent.watch.adding import new_watch
from tests.test_console import llm_server, serving, visiting

__all__ = ["llm_server"]  # the test model's server, a fixture of the console's tests
WAIT_S = 60


async def test_the_console_lists_pauses_resumes_removes_and_checks_watches(
    tmp_path: Path, browser: Browser, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    settings = load_settings().with_overrides(workspace=tmp_path)
    store = Store.of(open_store(settings))
    due, _ = new_watch(
        store, settings, "open Trail Blazer 2", "1h", f"{demo.url}/", "price under 50", None
    )
    other, _ = new_watch(store, settings, "open Road Glide 5", "1d", f"{demo.url}/", None, None)
    store.execute("UPDATE watch SET status = 'paused' WHERE id = :id", id=other.id)

    with serving(tmp_path, llm_server) as served:
        deadline = time.monotonic() + WAIT_S
        while not checks_of(store, due) and time.monotonic() < deadline:
            time.sleep(0.2)
        (check,) = checks_of(store, due)  # the server checked the due watch, once
        assert check.status == "succeeded", check.answer
        assert check.final_url == f"{demo.url}/product/trail-blazer-2"
        assert checks_of(store, other) == []  # paused: not checked

        async with visiting(browser, served) as page:
            await page.goto(f"{served.origin}/watches")
            row = page.locator(f"tr[data-watch='{due.name}']")
            await expect(row).to_contain_text("succeeded")
            await expect(row).to_contain_text("price under 50")
            paused = page.locator(f"tr[data-watch='{other.name}']")
            await expect(paused).to_contain_text("paused")

            await row.get_by_role("button", name="Pause").click()
            await expect(row).to_contain_text("paused")
            assert find_watch(store, due.name).status == "paused"
            await row.get_by_role("button", name="Resume").click()
            await expect(row).to_contain_text("active")
            assert find_watch(store, due.name).status == "active"
            await paused.get_by_role("button", name="Remove").click()
            await expect(paused).to_have_count(0)
            assert [w.name for w in all_watches(store)] == [due.name]
