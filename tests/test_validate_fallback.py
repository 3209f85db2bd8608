"""Fallback at run time and re-harvesting, on the demo shop's redesign: skills harvested on
the normal shop heal their selectors, ask the planner for a step, or hand over to the
primitives; the logs say so; re-harvested and healed versions become current only after
they pass validation."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.skills.stored import refusal
from browser_agent.store.db import open_store
from browser_agent.store.models import Run, Step
from browser_agent.store.skills import add_version, skill_by_name, versions_of
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import (
    ADD_TO_CART,
    OPEN_PRODUCT,
    SEARCH,
    clone_workspace,
    expecting_stale,
    harvest_commands,
    run_offline,
    workspace_settings,
)
from tests.stored_rows import clicking, opening, planned_skill


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("harvested") / "workspace")
    await harvest_commands([SEARCH, ADD_TO_CART, OPEN_PRODUCT], settings, browser, demo)
    return settings


@pytest.fixture
def workspace(harvested: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(harvested, tmp_path / "workspace")


def steps_of(settings: Settings, run: RunResult) -> list[Step]:
    with Session(open_store(settings)) as db:
        return list(db.exec(select(Step).where(Step.run_id == run.run_id).order_by(Step.index)))


def logged(run: RunResult) -> list[dict]:
    return json.loads(Path(run.log_path).read_text())


async def prices_on(browser: Browser, url: str) -> list[float]:
    page = await browser.new_page()
    await page.goto(url)
    texts = await page.locator("[data-testid=result] [class$=price]").all_inner_texts()
    await page.close()
    return [float(text.strip("$")) for text in texts]


async def test_redesign_runs_recover_through_healing_or_the_primitives(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    demo.variant = "redesign"

    healed = await run_offline(
        "search for road shoes and sort by price low to high", "/", workspace, engine, browser, demo
    )
    assert (healed.status, healed.steps, healed.llm_calls) == ("succeeded", 1, 0)
    assert healed.final_url == f"{demo.url}/search?query=road+shoes&order=price_asc"
    prices = await prices_on(browser, healed.final_url)
    assert prices and prices == sorted(prices)  # the page really is sorted as asked
    (step,) = steps_of(workspace, healed)
    assert (step.tool, step.ok, step.error) == ("search_sort", True, "skill_repaired")
    said = logged(healed)[-1]["content"]
    assert "Step 2: no visible element matches #search-box" in said
    assert (
        'went on with role=searchbox[name="Search products"s], found by its role and name' in said
    )
    assert "marked stale until it passes validation" in said
    skill = skill_by_name(engine, "search_sort")
    assert skill is not None and skill.status == "stale"
    assert json.loads(skill.healed) == {
        "2": {"#search-box": 'role=searchbox[name="Search products"s]'},
        "3": {"#sort": 'role=combobox[name="Sort by"s]'},
    }

    carted = await run_offline(
        "add Trail Blazer 2 in size 42, quantity 2 to the cart",
        "/",
        workspace,
        engine,
        browser,
        demo,
    )
    assert (carted.status, carted.llm_calls) == ("succeeded", 0)
    assert carted.final_url == f"{demo.url}/cart"
    assert "#size" in logged(carted)[-1]["content"]

    # a product the home page does not link: the skill does not apply to this command (the
    # link it is told to open is not there), stays as it was, and the primitives do the task
    before = skill_by_name(engine, "open_link_name")
    searched = await run_offline("open Canyon Scout", "/", workspace, engine, browser, demo)
    assert searched.status == "succeeded", searched.answer
    assert searched.final_url == f"{demo.url}/product/canyon-scout"
    steps = steps_of(workspace, searched)
    assert (steps[0].tool, steps[0].ok, steps[0].error) == (
        "open_link_name",
        False,
        "skill_not_applicable",
    )
    assert "Canyon Scout" in steps[0].response
    assert {"open_url", "get_dom", "click"} <= {s.tool for s in steps[1:]}
    after = skill_by_name(engine, "open_link_name")
    assert before is not None and after is not None
    assert (after.status, after.failures) == (before.status, before.failures)

    # a product that does not exist: the fallback fails too, and the run says so
    missing = await run_offline(
        "add Unicorn Boots in size 42, quantity 2 to the cart",
        "/",
        workspace,
        engine,
        browser,
        demo,
    )
    assert missing.status == "failed"
    assert missing.answer.startswith('Could not find a link to "Unicorn Boots"')


def step_helper_model(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A model that, asked for one skill step, looks at the page and names the button."""
    assert "cannot find the element of one step" in messages[0]["content"]
    assert "click on the button 'Buy now'" in messages[1]["content"]
    last = messages[-1]
    if last["role"] != "tool":
        return LLMReply(None, [ToolCall("h1", "get_dom", '{"content_type": "input_fields"}')])
    mmid = re.search(r'^\[(\d+)\] button "Add to cart"', last["content"], re.MULTILINE)
    assert mmid, last["content"]
    selector = json.dumps({"selector": f"[mmid='{mmid.group(1)}']"})
    return LLMReply(None, [ToolCall("h2", "choose_element", selector)])


async def test_the_planner_does_the_one_step_healing_cannot(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    start = f"{demo.url}/product/mud-dog"
    buy = clicking("#buy-button", "button", "Buy now", "button", navigated_to="/cart")
    skill = add_version(
        engine,
        planned_skill(
            "buy_product",
            "buy the product",
            [opening(start), buy],
            status="healthy",
            start_url=start,
            expected_end="/cart",
        ),
    )
    run = await run_command(
        "buy the product",
        FunctionClient(step_helper_model),
        expecting_stale(workspace),  # no way to #buy-button is left on the page
        start_url=f"{demo.url}/product/mud-dog",
        browser=browser,
        engine=engine,
    )
    assert (run.status, run.steps, run.llm_calls) == ("succeeded", 1, 2), run.answer
    assert run.final_url == f"{demo.url}/cart"
    said = logged(run)[-1]["content"]
    assert "no visible element matches #buy-button" in said and "found by the planner" in said
    after = skill_by_name(engine, "buy_product")
    assert after is not None and after.id == skill.id
    assert after.status == "stale" and json.loads(after.healed) == {}  # an mmid is not kept


async def test_reharvest_makes_new_versions_current_once_they_pass(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    demo.variant = "redesign"
    for command in (
        "search for road shoes and sort by price low to high",  # heals: search_sort goes stale
        "search for sandals and sort by price low to high",  # so the primitives do this one
        "add Trail Blazer 2 in size 42, quantity 2 to the cart",  # heals: only healed selectors
    ):
        run = await run_offline(command, "/", workspace, engine, browser, demo)
        assert run.status == "succeeded", run.answer
    primitive_run = run_id_of(workspace, "search for sandals and sort by price low to high")
    old_add = skill_by_name(engine, "add_size_quantity_cart")
    assert old_add is not None
    old_code = (workspace.workspace / old_add.module_path).read_text()

    stale = expecting_stale(workspace)
    report = await run_validation(stale, all_skills=True, reharvest=True, browser=browser)
    renewed = {c.name: (c.verdict, c.renewed) for c in report.checked}
    verdict, search = renewed["search_sort"]
    assert verdict == "stale" and search is not None
    assert (search.version, search.source, search.passed) == (2, f"run {primitive_run}", True)
    verdict, add = renewed["add_size_quantity_cart"]
    assert verdict == "stale" and add is not None
    assert (add.version, add.source, add.passed) == (2, "healed selectors", True)
    assert renewed["open_link_name"] == ("healthy", None)
    assert report.exit_code() == 0

    for name in ("search_sort", "add_size_quantity_cart"):
        versions = [(s.version, s.current, s.status) for s in versions_of(engine, name)]
        assert versions == [(1, False, "stale"), (2, True, "healthy")]
    search_v2 = skill_by_name(engine, "search_sort")
    assert search_v2 is not None and json.loads(search_v2.source_runs) == [primitive_run]
    assert search_v2.expected_end == "/search?query=sandals&order=price_asc"

    add_v2 = skill_by_name(engine, "add_size_quantity_cart")
    assert add_v2 is not None and add_v2.expected_end == old_add.expected_end
    assert (workspace.workspace / old_add.module_path).read_text() == old_code  # v1 as it was
    assert old_add.source == old_code  # and so is its code in the store
    code = (workspace.workspace / add_v2.module_path).read_text()
    assert add_v2.source == code and refusal(add_v2) is None  # made from its own plan
    assert json.loads(add_v2.plan)["note"] == "Version 2 with healed selectors for steps 3, 4, 5."
    assert "# Version 2 with healed selectors for steps 3, 4, 5." in code
    selectors = [
        ast.literal_eval(keyword.value)
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Target"
        for keyword in node.keywords
        if keyword.arg == "selector"
    ]
    assert selectors == [
        'role=link[name="Road Glide 5"]',
        'role=combobox[name="Size"s]',
        'role=spinbutton[name="Quantity"s]',
        'role=button[name="Add to cart"s]',
    ]

    again = await run_validation(workspace, all_skills=True, browser=browser)
    assert {(c.name, c.version, c.verdict) for c in again.checked} == {
        ("search_sort", 2, "healthy"),
        ("add_size_quantity_cart", 2, "healthy"),
        ("open_link_name", 1, "healthy"),
    }
    routed = await run_offline(
        "add Trail Blazer 2 in size 40, quantity 2 to the cart",
        "/",
        workspace,
        engine,
        browser,
        demo,
    )
    assert (routed.status, routed.llm_calls, routed.steps) == ("succeeded", 0, 1)
    assert "needed repairs" not in logged(routed)[-1]["content"]


def run_id_of(settings: Settings, command: str) -> str:
    with Session(open_store(settings)) as db:
        (run,) = db.exec(select(Run).where(Run.command == command)).all()
    return run.id
