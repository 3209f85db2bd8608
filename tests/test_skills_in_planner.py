"""Harvested skills beside the primitives: offered as tools, chosen by relevance, and the
harvest/skills commands a user runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.planner.router import relevant
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run, Skill
from browser_agent.store.skill_use import current_skills
from tests.scripted import search_and_sort

COMMAND = "find trail shoes in the shop and sort by best seller"


async def learn(settings: Settings, browser: Browser, demo: DemoSite) -> Path:
    """A scripted planner run, harvested into a healthy skill; returns the run's log."""
    run = await run_command(
        COMMAND,
        FunctionClient(search_and_sort(demo.url, "trail shoes", "Best seller")),
        settings,
        start_url=demo.url,
        browser=browser,
    )
    (made,) = await harvest([Path(run.log_path)], settings, open_store(settings), browser=browser)
    assert made.verified, made.verify_error
    return Path(run.log_path)


async def test_a_healthy_skill_is_offered_to_the_planner_as_a_tool(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    await learn(settings, browser, demo)
    offered: list[list[str]] = []

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        offered.append([t["function"]["name"] for t in tools])
        if messages[-1]["role"] == "tool":
            answer = {"answer": f"Done: {messages[-1]['content']}", "success": True}
            return LLMReply(None, [ToolCall("c2", "finish", json.dumps(answer))])
        arguments = {
            "search_term": "road shoes",
            "sort_by": "price high to low",
            "start_url": demo.url,
        }
        return LLMReply(None, [ToolCall("c1", "find_shop_sort", json.dumps(arguments))])

    # not the template's wording, so no route: the planner decides to use the skill
    result = await run_command(
        "please look up road shoes, most expensive first",
        FunctionClient(model),
        settings,
        browser=browser,
    )
    assert "find_shop_sort" in offered[0] and "click" in offered[0]
    assert result.status == "succeeded" and result.llm_calls == 2
    assert result.final_url == f"{demo.url}/search?q=road+shoes&sort=price_desc"
    schema = next(
        t
        for t in json.loads((current_skills(open_store(settings))[0]).signature)["function"][
            "parameters"
        ]["properties"].items()
        if t[0] == "search_term"
    )
    assert schema[1]["type"] == "string" and "example" in schema[1]["description"]


def test_only_the_most_relevant_skills_are_offered() -> None:
    def skill(name: str, template: str) -> Skill:
        return Skill(
            name=name,
            module_path="",
            shape=template,
            status="healthy",
            command_templates=json.dumps([template]),
        )

    skills = [
        skill(f"s{i}", t)
        for i, t in enumerate(
            [
                "log in as {username} with password {password}",
                "find {search_term} and sort by {sort_by}",
                "add {product} to the cart",
                "find stores near {city}",
                "go to deals and accept the cookies",
                "sort {search_term} results by {sort_by} and open the first",
            ]
        )
    ]
    chosen = relevant("find trail shoes and sort by price", skills, limit=3)
    assert [s.name for s in chosen] == ["s1", "s3", "s5"]
    assert relevant("fly to the moon", skills) == []


async def test_an_interrupted_run_keeps_its_log_and_says_so(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    started = asyncio.Event()

    async def slow_model(messages: list[dict], tools: list[dict]) -> LLMReply:
        if len(messages) > 2:
            started.set()
            await asyncio.sleep(30)
        return LLMReply(None, [ToolCall("c1", "open_url", json.dumps({"url": demo.url}))])

    task = asyncio.create_task(
        run_command("open the shop", FunctionClient(slow_model), settings, browser=browser)
    )
    await asyncio.wait_for(started.wait(), 20)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    from sqlmodel import Session, select

    with Session(open_store(settings)) as db:
        (run,) = db.exec(select(Run)).all()
    assert run.status == "interrupted" and run.steps == 1
    log = json.loads((settings.workspace / run.log_path).read_text())
    assert log[3]["content"].startswith("Page loaded")


async def test_harvest_and_skills_commands(
    settings: Settings, browser: Browser, demo: DemoSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = await learn(settings, browser, demo)
    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(settings.workspace))
    runner = CliRunner()
    listed = runner.invoke(app, ["skills"])
    assert listed.exit_code == 0 and "find_shop_sort" in listed.output
    assert "healthy" in listed.output
    shown = runner.invoke(app, ["skills", "show", "find_shop_sort"])
    assert shown.exit_code == 0 and "async def find_shop_sort" in shown.output
    missing = runner.invoke(app, ["skills", "show", "nope"])
    assert missing.exit_code == 2  # a name that is no skill: the user's mistake
    dry = await asyncio.to_thread(runner.invoke, app, ["harvest", str(log), "--dry-run"])
    assert dry.exit_code == 0 and "async def" in dry.output
    assert len(current_skills(open_store(settings))) == 1  # the dry run wrote nothing
    nothing = runner.invoke(app, ["harvest"])
    assert nothing.exit_code == 2 and "Nothing to harvest" in nothing.output
