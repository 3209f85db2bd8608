"""The pictures of the web console in docs/console.md, taken from a real `browser-agent serve`.

Starts the demo shop and a console on a fresh workspace (offline planner), runs a shop
command from the console's form, harvests it, validates the skill from the console, and
saves a screenshot of each page to docs/console/. Run:
    .venv/bin/python scripts/console_screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.async_api import Page, expect

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site import start_demo_site
from browser_agent.settings import load_settings

OUT = Path(__file__).resolve().parent.parent / "docs" / "console"
CLI = str(Path(sys.executable).parent / "browser-agent")
COMMAND = "search for trail shoes and sort by price low to high"
WAIT_MS = 120_000


async def shoot(page: Page, name: str) -> None:
    await page.screenshot(path=OUT / f"{name}.png", full_page=True)
    print(f"docs/console/{name}.png")


async def tour(url: str, origin: str, shop: str, workspace: Path, env: dict[str, str]) -> None:
    """Visit the console's pages as a person would and photograph each."""
    async with launched_browser(load_settings()) as browser:
        context = await browser.new_context(viewport={"width": 1100, "height": 720})
        page = await context.new_page()
        await page.goto(url)
        await page.get_by_label("Command").fill(COMMAND)
        await page.get_by_label("Start URL").fill(shop)
        await shoot(page, "start")
        await page.get_by_role("button", name="Run").click()
        await page.wait_for_url(re.compile(r"/live/\w+$"))
        await expect(page.locator("#status")).to_have_text("succeeded", timeout=WAIT_MS)
        await expect(page.locator("img.thumb").last).to_be_visible()
        await shoot(page, "run")
        harvest = subprocess.run([CLI, "harvest", "--all"], env=env, capture_output=True, text=True)
        if harvest.returncode != 0:
            sys.exit(f"harvest failed: {harvest.stdout}{harvest.stderr}")
        await page.goto(f"{origin}/skills")
        await shoot(page, "skills")
        await page.get_by_role("link", name=re.compile(r"^search_sort")).first.click()
        await page.get_by_role("button", name="Validate").click()
        first = page.locator("section.validation").first
        await expect(first.locator(".state")).to_have_text("done", timeout=WAIT_MS)
        await shoot(page, "validation")
        await page.get_by_role("link", name=re.compile(r"^search_sort")).first.click()
        await expect(page.locator("#history")).to_be_visible()
        await shoot(page, "skill")
        await page.goto(f"{origin}/runs")
        await shoot(page, "runs")
        await context.close()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, start_demo_site(port=0) as shop:
        workspace = Path(folder)
        env = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(workspace)}
        for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BROWSER_AGENT_LLM_BASE_URL"):
            env.pop(name, None)  # the offline planner: no network, the same pictures each time
        server = subprocess.Popen(
            [CLI, "serve", "--port", "0", "--model", "offline"],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", line)
            if not found:
                sys.exit(f"the console did not start: {line!r}")
            asyncio.run(tour(found.group(0), found.group(1), f"{shop.url}/", workspace, env))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
