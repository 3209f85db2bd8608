"""A script ``playwright codegen`` wrote, taught as a demonstration: read (never run as
Python), played on the demo shop while the recorder writes it, harvested like a recorded
demonstration; the skill then does a fresh command with no model call."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.errors import UserError
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import run_command
from browser_agent.record.codegen_script import UnreadableScript, play, read_script, teach_script
from browser_agent.settings import Settings
from browser_agent.store.db import open_store

# Written as `playwright codegen --target python-async` writes a file: the header and the
# footer are the expected file of "should save the codegen output to a file if specified"
# (tests/library/inspector/cli-codegen-python-async.spec.ts), the action lines the
# "Python Async" lines of "should fill", "should press" and "should select"
# (tests/library/inspector/cli-codegen-1.spec.ts), with the locators PythonLocatorFactory
# writes (get_by_role with name=, get_by_label; packages/playwright-core/src/utils/
# isomorphic/locatorGenerators.ts). It was recorded on the shop served at its usual port.
ASYNC_SCRIPT = """\
import asyncio
import re
from playwright.async_api import Playwright, async_playwright, expect


async def run(playwright: Playwright) -> None:
    browser = await playwright.chromium.launch(headless=False)
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto("http://127.0.0.1:8811/")
    await page.get_by_role("searchbox", name="Search products").click()
    await page.get_by_role("searchbox", name="Search products").fill("trail shoes")
    await page.get_by_role("searchbox", name="Search products").press("Enter")
    await page.get_by_label("Sort by").select_option("best_seller")
    await page.close()

    # ---------------------
    await context.close()
    await browser.close()


async def main() -> None:
    async with async_playwright() as playwright:
        await run(playwright)


asyncio.run(main())
"""

# The same steps as `--target python` writes them (packages/playwright-core/src/server/
# codegen/python.ts: generateHeader and generateFooter of the sync library).
SYNC_SCRIPT = """\
import re
from playwright.sync_api import Playwright, sync_playwright, expect


def run(playwright: Playwright) -> None:
    browser = playwright.chromium.launch(headless=False)
    context = browser.new_context()
    page = context.new_page()
    page.goto("http://127.0.0.1:8811/")
    page.get_by_role("searchbox", name="Search products").click()
    page.get_by_role("searchbox", name="Search products").fill("trail shoes")
    page.get_by_role("searchbox", name="Search products").press("Enter")
    page.get_by_label("Sort by").select_option("best_seller")
    page.close()

    # ---------------------
    context.close()
    browser.close()


with sync_playwright() as playwright:
    run(playwright)
"""

COMMAND = "find trail shoes and sort by best seller"


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although the skill should have done the work")


async def test_a_codegen_script_taught_routes_a_fresh_command_with_no_model_call(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    saved, name, said = await teach_script(
        read_script(ASYNC_SCRIPT), COMMAND, settings, engine, site=demo.url, browser=browser
    )
    assert name is not None, said
    assert "verified by replay" in said
    log = json.loads(Path(saved.log_path).read_text(encoding="utf-8"))
    tools = [c["function"]["name"] for m in log for c in m.get("tool_calls") or []]
    # the same calls a person's demonstration of these steps gives (tests/test_record.py)
    assert tools == [
        "open_url", "get_dom", "enter_text", "get_dom", "select_option", "finish"
    ]  # fmt: skip
    assert f"{demo.url}/" in log[0]["content"]  # the script's site moved to --url

    run = await run_command(
        "find road shoes and sort by price low to high",
        FunctionClient(no_llm),
        settings,
        start_url=f"{demo.url}/",
        browser=browser,
        engine=engine,
    )
    assert (run.status, run.llm_calls) == ("succeeded", 0), run.answer
    assert run.final_url == f"{demo.url}/search?q=road+shoes&sort=price_asc"


def test_the_sync_script_reads_as_the_same_steps() -> None:
    # one line apart: the sync script imports no asyncio
    assert [replace(s, line=s.line + 1) for s in read_script(SYNC_SCRIPT)] == read_script(
        ASYNC_SCRIPT
    )
    steps = read_script(ASYNC_SCRIPT)
    assert [(s.line, s.action) for s in steps] == [
        (9, "new_page"), (10, "goto"), (11, "click"), (12, "fill"), (13, "press"),
        (14, "select_option"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('    await page.evaluate("document.title = 1")', "evaluate() is not an action"),
        ("    await page.mouse.click(10, 25)", "is not a locator codegen writes"),
        ("    __import__('os').system('true')", "system() is not an action"),
        ('    await page.locator(open("x").read()).click()', "is not a literal value"),
        (
            "    async with page.expect_popup() as page1_info:\n"
            '        await page.get_by_role("link", name="link").click()',
            "a popup or a download is not taught",
        ),
    ],
)
def test_a_line_it_cannot_read_is_refused_by_its_number(line: str, said: str) -> None:
    with pytest.raises(UnreadableScript, match=r"^Line 12 of the script: ") as refused:
        read_script(with_line(line))
    assert said in str(refused.value)


def test_teach_refuses_an_unreadable_script_in_one_line(settings: Settings, tmp_path: Path) -> None:
    script = tmp_path / "recorded.py"
    script.write_text(with_line("    await page.mouse.click(10, 25)"), encoding="utf-8")
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    done = CliRunner().invoke(app, ["teach", str(script), COMMAND], env=env)
    assert done.exit_code == 2, done.output
    assert done.output.startswith("Error: Line 12 of the script: ")
    assert len(done.output.strip().splitlines()) == 1


def with_line(line: str) -> str:
    """The codegen script with ``line`` after its goto (line 10)."""
    lines = ASYNC_SCRIPT.splitlines()
    lines.insert(11, line)
    return "\n".join(lines)


async def test_a_script_opens_only_what_open_url_may(settings: Settings, browser: Browser) -> None:
    steps = read_script(ASYNC_SCRIPT.replace("http://127.0.0.1:8811/", "file:///etc/passwd"))
    with pytest.raises(UserError, match="file"):
        await play(steps, browser, settings)
