"""Teaching by showing: Playwright plays a person on the demo shop while the recorder
writes a run; the run harvests into a skill that replays on other values with no model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Page
from sqlalchemy import Engine

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import HarvestResult, harvest
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.record.save import SavedRecording, save_recording
from browser_agent.record.session import Recording, record_session
from browser_agent.settings import Settings
from browser_agent.store.db import open_store

Person = Callable[[Page], Awaitable[None]]


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although the skill should have done the work")


@asynccontextmanager
async def fresh_page(browser: Browser) -> AsyncIterator[tuple[BrowserContext, Page]]:
    context = await browser.new_context()
    try:
        yield context, await context.new_page()
    finally:
        await context.close()


async def demonstrate(
    browser: Browser, person: Person, *, secrets: dict[str, str] | None = None
) -> Recording:
    """Record what ``person`` does in a fresh context, until they are done."""
    async with (
        fresh_page(browser) as (context, page),
        record_session(context, secrets) as recording,
    ):
        await person(page)
        await page.wait_for_load_state()
    return recording


async def taught(
    browser: Browser, settings: Settings, engine: Engine, person: Person, command: str
) -> tuple[SavedRecording, HarvestResult]:
    """Record, save as a run of ``command``, harvest and verify."""
    recording = await demonstrate(browser, person)
    saved = save_recording(recording, command, settings, engine)
    (result,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert result.error is None and result.skill is not None, result.error
    assert result.verified, result.verify_error
    return saved, result


async def routed(
    command: str, settings: Settings, browser: Browser, engine: Engine, start_url: str
) -> RunResult:
    """``command`` carried out with a model that must not be asked."""
    return await run_command(
        command,
        FunctionClient(no_llm),
        settings,
        start_url=start_url,
        browser=browser,
        engine=engine,
    )


async def test_search_and_sort_shown_once_then_done_without_the_model(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    async def person(page: Page) -> None:
        await page.goto(demo.url)
        await page.fill("#search-box", "trail shoes")
        await page.click("#search-submit")
        await page.select_option("#sort", label="Best seller")  # the page submits it
        await page.wait_for_url("**&sort=best_seller")

    engine = open_store(settings)
    saved, result = await taught(
        browser, settings, engine, person, "find trail shoes and sort by best seller"
    )
    log = json.loads(Path(saved.log_path).read_text(encoding="utf-8"))
    tools = [c["function"]["name"] for m in log for c in m.get("tool_calls") or []]
    assert tools == [
        "open_url", "get_dom", "enter_text", "get_dom", "click", "get_dom", "select_option",
        "finish",
    ]  # fmt: skip
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == [
        "find {search_term} and sort by {sort_by}"
    ]
    run = await routed(
        "find road shoes and sort by price low to high", settings, browser, engine, demo.url
    )
    assert run.status == "succeeded", run.answer
    assert run.llm_calls == 0
    assert run.final_url == f"{demo.url}/search?q=road+shoes&sort=price_asc"
