"""A planner run on the demo site, harvested, then recurring commands through the skill
with zero LLM calls, each checked against the page's real end state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.testing.openai_server import start_test_llm_server
from tests.scripted import search_and_sort


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def test_harvested_skill_runs_recurring_commands_without_the_model(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    with start_test_llm_server(search_and_sort(demo.url, "trail shoes", "Best seller")) as server:
        llm = OpenAIClient("test-model", base_url=server.base_url)
        first = await run_command(
            "find trail shoes in the shop and sort by best seller",
            llm,
            settings,
            start_url=demo.url,
            browser=browser,
            engine=engine,
        )
    assert first.status == "succeeded" and first.llm_calls == 6

    (result,) = await harvest([Path(first.log_path)], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    (skill,) = current_skills(engine, "healthy")
    assert json.loads(skill.command_templates) == [
        "find {search_term} in the shop and sort by {sort_by}"
    ]
    assert json.loads(skill.example_args) == {
        "search_term": "trail shoes",
        "sort_by": "best seller",
    }
    assert skill.expected_end == "/search?q=trail+shoes&sort=best_seller"
    assert (settings.workspace / skill.module_path).parent == settings.harvested_dir

    cases = [
        ("find road shoes in the shop and sort by price low to high", "road+shoes", "price_asc"),
        ("Find sandals in the shop and sort by customer rating", "sandals", "rating"),
        ("find hiking in the shop and sort by price: high to low", "hiking", "price_desc"),
    ]
    page = await browser.new_page()
    for command, query, sort in cases:
        run = await run_command(
            command,
            FunctionClient(no_llm),
            settings,
            start_url=demo.url,
            browser=browser,
            engine=engine,
        )
        assert run.status == "succeeded", run.answer
        assert run.llm_calls == 0 and run.steps == 1
        assert run.final_url == f"{demo.url}/search?q={query}&sort={sort}"
        # the real end state: the page the skill left is sorted as asked
        await page.goto(run.final_url)
        prices = [
            float(p.strip("$"))
            for p in await page.locator("[data-testid=result] [class$=price]").all_inner_texts()
        ]
        assert prices, command
        if sort == "price_asc":
            assert prices == sorted(prices)
        if sort == "price_desc":
            assert prices == sorted(prices, reverse=True)
    await page.close()
    (used,) = current_skills(engine, "healthy")
    assert (used.uses, used.successes) == (3, 3)


async def search_run(
    settings: Settings, browser: Browser, demo: DemoSite, engine: Engine
) -> RunResult:
    """A scripted planner run of the search-and-sort command, ready to harvest."""
    return await run_command(
        "find trail shoes in the shop and sort by best seller",
        FunctionClient(search_and_sort(demo.url, "trail shoes", "Best seller")),
        settings,
        start_url=demo.url,
        browser=browser,
        engine=engine,
    )


async def test_dry_run_writes_nothing(settings: Settings, browser: Browser, demo: DemoSite) -> None:
    engine = open_store(settings)
    run = await search_run(settings, browser, demo, engine)
    (result,) = await harvest([Path(run.log_path)], settings, engine, dry_run=True)
    assert result.code and "async def" in result.code
    assert not settings.harvested_dir.exists()
    assert current_skills(engine) == []


@pytest.mark.parametrize("broken", ["{not json", '{"a": []}'])
async def test_one_bad_log_does_not_stop_a_batch(
    settings: Settings, browser: Browser, demo: DemoSite, broken: str
) -> None:
    engine = open_store(settings)
    run = await search_run(settings, browser, demo, engine)
    bad = settings.workspace / "bad.json"
    bad.write_text(broken)
    results = await harvest([bad, Path(run.log_path)], settings, engine, browser=browser)
    assert results[0].error and "bad.json" in results[0].error
    assert results[1].skill is not None and results[1].verified


async def test_a_form_inside_an_iframe_is_harvested_and_reused(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    from browser_agent.llm.offline import OfflinePlanner

    engine = open_store(settings)
    first = await run_command(
        'send the message "Where is my order?" as Ada Lovelace through the help contact form',
        OfflinePlanner(),
        settings,
        start_url=f"{demo.url}/",
        browser=browser,
        engine=engine,
    )
    (made,) = await harvest([Path(first.log_path)], settings, engine, browser=browser)
    assert made.verified, made.verify_error
    # "help" names the help page's link: "Home", listed beside it, does not do the command
    assert json.loads(made.skill.command_templates) == [
        'send the message "{message}" as {name} through the help contact form'
    ]
    assert any("link_name: refuted as a choice" in reading for reading in made.readings)
    again = await run_command(
        'send the message "Do you ship to Oslo?" as Grace Hopper through the help contact form',
        FunctionClient(no_llm),
        settings,
        start_url=f"{demo.url}/",
        browser=browser,
        engine=engine,
    )
    assert again.status == "succeeded" and again.llm_calls == 0
    assert demo.submissions[-1] == {
        "form": "contact",
        "fields": {"name": "Grace Hopper", "message": "Do you ship to Oslo?"},
    }
