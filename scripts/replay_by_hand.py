"""The demo shop's "search for sandals and sort by customer rating", written by hand with
Playwright: the floor that scripts/bench_replay.py measures a routed run against.

Chromium is found and launched as the product launches it (same executable, flags and
viewport); then open, fill the search box, press Enter, choose the sort option and wait
for the sorted results. Run:
    .venv/bin/python scripts/replay_by_hand.py http://127.0.0.1:8811/
"""

from __future__ import annotations

import asyncio
import sys

from playwright.async_api import async_playwright

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium


async def replay(url: str) -> str:
    """Carry out the steps on the shop at ``url``; the final page's URL."""
    async with async_playwright() as playwright:
        executable = find_chromium(None, playwright.chromium.executable_path, headless=True)
        browser = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=LAUNCH_ARGS
        )
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        page = await context.new_page()
        await page.goto(url)
        await page.fill("#search-box", "sandals")
        async with page.expect_navigation():
            await page.press("#search-box", "Enter")
        async with page.expect_navigation():
            await page.select_option("#sort", "rating")
        await page.wait_for_selector("main")
        final = page.url
        await browser.close()
    return final


def main() -> None:
    final = asyncio.run(replay(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8811/"))
    if "sort=rating" not in final:
        sys.exit(f"The results are not sorted by rating: {final}")
    print(final)


if __name__ == "__main__":
    main()
