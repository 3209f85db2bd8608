"""Routing on the demo shop with a real Chromium and a real store: a skill harvested from a
planner run takes commands worded differently with no model call, hands a command whose
value is not on the page to the planner without being marked stale, and leaves commands
with another clause to the planner."""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill, Step
from browser_agent.store.skills import skill_by_name
from tests.skill_workspaces import OPEN_PRODUCT, harvest_commands, workspace_settings

SKILL = "open_link_name"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def workspace(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace whose store holds the skill harvested from "open Trail Blazer 2" (the
    tests compare the skill's counts before and after their own runs)."""
    settings = workspace_settings(tmp_path_factory.mktemp("routing") / "workspace")
    settings = settings.with_overrides(action_timeout_ms=1_500)  # a missing link waits this
    await harvest_commands([OPEN_PRODUCT], settings, browser, demo)
    return settings


class Recorded:
    """The offline planner, keeping every context it was sent."""

    def __init__(self) -> None:
        self.contexts: list[list[dict]] = []
        self.planner = OfflinePlanner()

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        self.contexts.append(messages)
        return self.planner(messages, tools)


async def run(
    command: str, model: Recorded, settings: Settings, engine: Engine, browser: Browser, url: str
) -> RunResult:
    return await run_command(
        command,
        FunctionClient(model),
        settings,
        start_url=f"{url}/",
        browser=browser,
        engine=engine,
    )


def steps_of(engine: Engine, run: RunResult) -> list[Step]:
    with Session(engine) as db:
        return list(db.exec(select(Step).where(Step.run_id == run.run_id).order_by(Step.index)))


def counts(skill: Skill | None) -> tuple:
    assert skill is not None
    return (skill.status, skill.uses, skill.successes, skill.failures, skill.last_error)


async def test_a_value_not_on_the_page_hands_over_to_the_planner_and_the_skill_stays_healthy(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    skill = skill_by_name(engine, SKILL)
    assert skill is not None and json.loads(skill.command_templates) == ["open {link_name}"]
    before = counts(skill)
    assert before[0] == "healthy"

    # a product the shop does not have: the skill is tried, does not apply, the planner
    # is told so in plain words and says it could not do it
    model = Recorded()
    typo = await run("open Unicorn Boots", model, workspace, engine, browser, demo.url)
    first = steps_of(engine, typo)[0]
    assert (first.tool, first.ok, first.error) == (SKILL, False, "skill_not_applicable")
    assert json.loads(first.arguments)["link_name"] == "Unicorn Boots"
    assert "does not apply to this command" in first.response
    assert "stays healthy" in first.response and "Carry on" in first.response
    assert typo.llm_calls >= 1 and model.contexts
    told = model.contexts[0][-1]
    assert told["role"] == "tool" and told["content"] == first.response
    assert typo.status == "failed"
    assert "Unicorn Boots" in typo.answer and "Could not" in typo.answer
    assert counts(skill_by_name(engine, SKILL)) == before

    # a product the home page does not link: the planner does it from the page as it is
    model = Recorded()
    elsewhere = await run("open Canyon Scout", model, workspace, engine, browser, demo.url)
    steps = steps_of(engine, elsewhere)
    assert (steps[0].tool, steps[0].error) == (SKILL, "skill_not_applicable")
    assert elsewhere.status == "succeeded", elsewhere.answer
    assert elsewhere.llm_calls >= 1
    assert elsewhere.final_url == f"{demo.url}/product/canyon-scout"
    assert counts(skill_by_name(engine, SKILL)) == before

    # the next command of the skill's shape, worded differently, runs with no model call
    model = Recorded()
    routed = await run("Please open “Road Glide 5”.", model, workspace, engine, browser, demo.url)
    assert (routed.status, routed.llm_calls, routed.steps) == ("succeeded", 0, 1), routed.answer
    assert model.contexts == []
    assert routed.final_url == f"{demo.url}/product/road-glide-5"
    (step,) = steps_of(engine, routed)
    assert (step.tool, step.ok, step.error) == (SKILL, True, None)
    assert json.loads(step.arguments)["link_name"] == "Road Glide 5"
    status, uses, successes, failures, last_error = before
    after = (status, uses + 1, successes + 1, failures, last_error)
    assert counts(skill_by_name(engine, SKILL)) == after


async def test_a_command_with_another_clause_goes_to_the_planner(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    before = counts(skill_by_name(engine, SKILL))
    model = Recorded()
    run_ = await run(
        "open Road Glide 5 and then open the cart", model, workspace, engine, browser, demo.url
    )
    assert run_.llm_calls >= 1 and model.contexts
    assert all(step.tool != SKILL for step in steps_of(engine, run_))
    assert run_.status == "succeeded", run_.answer  # both clauses done, not only the first
    assert run_.final_url == f"{demo.url}/cart"
    assert counts(skill_by_name(engine, SKILL)) == before
