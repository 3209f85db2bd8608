"""Watches on the clock in the web console (a real serve process, a real Chromium): a watch
made with ``--at`` or ``--cron`` shows its clock and its next check, not a period, and
resuming it waits for its next time instead of checking at once."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, expect

from browser_agent.demo_site import DemoSite
from browser_agent.settings import load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.watches import find_watch
from browser_agent.testing.openai_server import LLMTestServer
from browser_agent.watch.adding import new_watch
from tests.test_console import llm_server, serving, visiting

__all__ = ["llm_server"]  # the test model's server, a fixture of the console's tests


async def test_clock_and_cron_watches_show_their_schedule_and_next_check(
    tmp_path: Path, browser: Browser, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    settings = load_settings().with_overrides(workspace=tmp_path)
    store = Store.of(open_store(settings))
    start = f"{demo.url}/"
    daily, _ = new_watch(store, settings, "open Trail Blazer 2", None, start, None, None, at="9:05")
    weekdays, _ = new_watch(
        store, settings, "open Road Glide 5", None, start, None, None, cron="30 17 * * 1-5"
    )
    hourly, _ = new_watch(
        store, settings, "open Trail Blazer 2", "2h", start, "price under 9", None
    )

    with serving(tmp_path, llm_server) as served:
        async with visiting(browser, served) as page:
            await page.goto(f"{served.origin}/watches")
            row = page.locator(f"tr[data-watch='{daily.name}']")
            await expect(row.locator("td.when")).to_have_text("at 09:05")
            await expect(row.locator("td.next")).to_contain_text(
                f"{daily.next_at.astimezone():%H:%M}, in "
            )
            cron = page.locator(f"tr[data-watch='{weekdays.name}']")
            await expect(cron.locator("td.when")).to_have_text("cron 30 17 * * 1-5")
            await expect(cron.locator("td.next")).to_contain_text(
                f"{weekdays.next_at.astimezone():%H:%M}, in "
            )
            period = page.locator(f"tr[data-watch='{hourly.name}']")
            await expect(period.locator("td.when")).to_have_text("every 2h")

            await row.get_by_role("button", name="Pause").click()
            await expect(row.locator("td.next")).to_have_text("no next check")
            await row.get_by_role("button", name="Resume").click()
            await expect(row).to_contain_text("active")
            resumed = find_watch(store, daily.name)
            assert resumed.next_at >= daily.next_at  # its next 09:05, not due at once
            assert f"{resumed.next_at.astimezone():%H:%M}" == "09:05"
            await expect(row.locator("td.next")).not_to_have_text("due now")
