"""Healing at the smallest scope (runtime.find in stages) and healed versions made from
healed plans, on small pages and plans."""

from __future__ import annotations

import ast

import pytest

from browser_agent.browser.session import BrowserSession
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import RUN_ENDED, ElementRecord, PlannedStep, SkillPlan
from browser_agent.plans.plan_data import plan_text, read_plan
from browser_agent.skills.runtime import SkillStale, Target, find, heal_stages, repairing
from browser_agent.store.models import Skill
from browser_agent.validate.healed import heal_plan
from browser_agent.validate.outcome import start_url_for

SAVE = Target(
    step=3,
    selector="#save",
    role="button",
    name="Save",
    tag="button",
    text="Save",
    attributes={"id": "save", "name": "primary"},
    xpath="//button[@id='save']",
    intent="click on the button 'Save'",
)


def test_healing_stages_go_from_role_and_name_to_the_xpath() -> None:
    assert [how for how, _selector in heal_stages(SAVE)] == [
        "its role and name",
        "its role and name, marks aside",
        "its visible text",
        "its name attribute",
        "its id attribute",
        "its XPath",
    ]


async def test_a_stale_selector_stops_the_skill_outside_repairing(
    page_session: BrowserSession,
) -> None:
    await page_session.page.set_content('<button id="store" name="primary">Save</button>')
    with pytest.raises(SkillStale) as stale:
        await find(SAVE)
    assert (stale.value.step, stale.value.selector) == (3, "#save")


async def test_healing_takes_the_first_stage_that_finds_exactly_the_recorded_control(
    page_session: BrowserSession,
) -> None:
    # two buttons are named Save: role and name, and the text, are ambiguous; the name
    # attribute finds one, and it has the recorded role and name
    await page_session.page.set_content(
        '<button id="store" name="primary">Save</button><button name="draft">Save</button>'
    )
    with repairing() as repairs:
        assert await find(SAVE) == 'button[name="primary"]'
    (repair,) = repairs.done
    assert (repair.step, repair.recorded, repair.how, repair.kept) == (
        3,
        "#save",
        "its name attribute",
        True,
    )
    assert repairs.kept() == {"3": {"#save": 'button[name="primary"]'}}


async def test_healing_refuses_an_element_that_is_another_control(
    page_session: BrowserSession,
) -> None:
    await page_session.page.set_content('<a id="save" name="primary" href="/x">Save</a>')
    with repairing() as repairs, pytest.raises(SkillStale) as stale:
        await find(SAVE)
    assert "now names a link 'Save', not the button 'Save'" in str(stale.value)
    assert repairs.done == []


async def test_the_step_helper_is_asked_only_when_healing_fails(
    page_session: BrowserSession,
) -> None:
    await page_session.page.set_content('<button id="keep">Keep it</button>')
    asked: list[tuple[int, str]] = []

    async def helper(target: Target, page: object, problem: str) -> str | None:
        asked.append((target.step, problem))
        return "#keep"

    with repairing(helper) as repairs:
        assert await find(SAVE) == "#keep"
    ((step, problem),) = asked  # the helper sees the step and why healing failed
    assert step == 3 and problem.startswith("Step 3: no visible element matches #save")
    (repair,) = repairs.done
    assert (repair.how, repair.kept) == ("the planner", False)
    assert repairs.kept() == {}


def searching_plan() -> SkillPlan:
    """A plan of three steps, two of them on elements (steps 2 and 3)."""

    def on(selector: str, role: str, name: str, primitive: str, **more: str) -> PlannedStep:
        record = ElementRecord(selector, role, name, "input")
        return PlannedStep(primitive, {"selector": selector, **more}, {"selector": record})

    return SkillPlan(
        command="search for shoes and sort by rating",
        template="search for shoes and sort by rating",
        params=[],
        steps=[
            PlannedStep("open_url", {"url": "http://127.0.0.1:8811/"}),
            on("#search-box", "searchbox", "Search products", "enter_text", text="shoes"),
            on("#sort", "combobox", "Sort by", "select_option", option="rating"),
        ],
        start_url="http://127.0.0.1:8811/",
        end_url="",
        ended_because=RUN_ENDED,
        source="run x",
    )


def selectors_of(code: str) -> list[str]:
    return [
        ast.literal_eval(keyword.value)
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Target"
        for keyword in node.keywords
        if keyword.arg == "selector"
    ]


def test_healed_version_swaps_only_the_healed_selectors_as_literals() -> None:
    hostile = 'x"]\n\'\'\'; import os; os.system("rm -rf /") #"""'
    plan = heal_plan(searching_plan(), {"3": {"#sort": hostile}, "9": {"#gone": "#new"}}, 2)
    code = generate_module(read_plan(plan_text(plan)), "search_sort")  # as the store keeps it
    assert selectors_of(code) == ["#search-box", hostile]
    assert code.startswith("# ruff: noqa: E501\n# Version 2 with healed selectors for steps 3.\n")
    assert "import os" not in code.replace(repr(hostile), "")  # only inside the literal
    with pytest.raises(ValueError):
        heal_plan(searching_plan(), {"2": {"#not-recorded": "#new"}}, 2)


def test_start_url_moves_to_another_base_url_keeping_path_and_query() -> None:
    skill = Skill(name="s", module_path="", shape="", start_url="http://127.0.0.1:8811/deals?a=1")
    assert start_url_for(skill, None) is None
    assert start_url_for(skill, "https://staging.example/shop/") == (
        "https://staging.example/shop/deals?a=1"
    )
