"""An observation of a page that a navigation replaces meanwhile is made again on the page
as it is now, instead of ending the run with Playwright's "Execution context was
destroyed" (seen on a busy machine: a navigation committing during get_dom)."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.dom.library import run_on_page


@pytest.mark.asyncio(loop_scope="session")
async def test_an_observation_outlived_by_its_page_is_made_on_the_new_page(
    browser: Browser, demo: DemoSite
) -> None:
    page = await browser.new_page()
    try:
        await page.goto(f"{demo.url}/big?n=50000")
        # another site (localhost is not 127.0.0.1) loads in another renderer, so the
        # navigation commits while the first page is still busy being observed
        elsewhere = demo.url.replace("127.0.0.1", "localhost") + "/"
        observed, _ = await asyncio.gather(
            run_on_page(page, "observe", contentType="all_fields", lastId=0, budget=None),
            page.goto(elsewhere),
        )
        assert page.url == elsewhere
        assert observed is not None
    finally:
        await page.close()
