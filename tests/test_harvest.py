"""Harvesting from recorded logs: selectors, parameters, where a skill ends, other agents'
logs, and generated code that untrusted text cannot change."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from browser_agent.harvest.calls import LogError
from browser_agent.harvest.elements import Tag, stable_selector
from browser_agent.harvest.logs import command_of, parse_messages, read_log
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.planner.router import route
from browser_agent.plans.codegen import generate_module, skill_name
from browser_agent.plans.plan import NotHarvestable, Param, looks_generated
from browser_agent.store.models import Skill

LOGS = Path(__file__).parent / "logs"


def tool_round(call_id: str, name: str, arguments: dict, response: str) -> list[dict]:
    """An assistant tool call and its answer, as this project's chat log writes them."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": call_id,
            "content": response,
            "tool_responses": [{"tool_call_id": call_id, "role": "tool", "content": response}],
        },
    ]


def shop_log(command: str, *rounds: list[dict], answer: str = "Done ##TERMINATE##") -> list:
    messages = [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": f'Execute the user task "{command}" starting at x.'},
    ]
    for r in rounds:
        messages += r
    return [*messages, {"role": "assistant", "content": answer}]


OPEN = tool_round(
    "c1", "open_url", {"url": "http://shop.test/"}, "Page loaded: http://shop.test/, title 'Shop'."
)
DOM = tool_round(
    "c2",
    "get_dom",
    {"content_type": "input_fields"},
    'Page "Shop" at http://shop.test/\n[4] searchbox "Search products" id=search-box'
    ' name=q\n[5] button "Search" id=search-submit\n[9] link "Trail Blazer 2"'
    " href=/p/tb2",
)
SEARCH = tool_round(
    "c3",
    "enter_text",
    {"selector": "[mmid='4']", "text": "trail shoes", "press_enter": True},
    'Text \'trail shoes\' entered in <input id="search-box" name="q" type="search" '
    'placeholder="Search products">. Pressed Enter. Page navigated to '
    "http://shop.test/search?q=trail+shoes.",
)


def test_command_is_found_inside_an_instruction() -> None:
    assert command_of('Execute the user task "find trail shoes" starting at http://x') == (
        "find trail shoes"
    )
    assert command_of("sort by price") == "sort by price"


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"id": "search-box", "name": "q"}, "#search-box"),
        ({"id": "ember1234", "name": "q"}, 'input[name="q"]'),
        ({"id": "a3f9c2e1b7d4", "data-testid": "search"}, 'input[data-testid="search"]'),
        ({"id": ":r5:", "aria-label": "Search"}, 'input[aria-label="Search"]'),
        ({"placeholder": "Search products"}, 'input[placeholder="Search products"]'),
        ({"class": "x"}, 'role=textbox[name="Search"]'),
    ],
)
def test_stable_selectors_follow_the_documented_order(attributes: dict, expected: str) -> None:
    assert stable_selector(Tag("input", attributes), "textbox", "Search") == expected


def test_option_value_and_nothing_stable() -> None:
    assert stable_selector(Tag("option", {"value": "price_asc"}), "option", "") == (
        'option[value="price_asc"]'
    )
    assert stable_selector(Tag("div", {"class": "x"}), "div", "") is None


@pytest.mark.parametrize(
    "generated",
    [
        "ember123",
        "react-select-2-input",
        ":r1:",
        "btn-8f3a9c1d2e",
        "item-20391",
        "radix-12",
        "c0a8e3f1-9b2c-4d",
    ],
)
def test_generated_looking_ids_are_refused(generated: str) -> None:
    assert looks_generated(generated)


@pytest.mark.parametrize("meaningful", ["search-box", "add-to-cart", "nav-home", "email", "q"])
def test_meaningful_ids_are_kept(meaningful: str) -> None:
    assert not looks_generated(meaningful)


def test_parameters_are_lifted_and_mmids_replaced() -> None:
    plan = plan_skill(parse_messages(shop_log("find trail shoes", OPEN, DOM, SEARCH), "x.json"))
    assert plan.template == "find {search_term}"
    assert [p.name for p in plan.params] == ["search_term"]
    search = plan.steps[1]
    assert search.arguments["selector"] == "#search-box"
    assert search.arguments["text"] == Param(
        "search_term", search.arguments["text"].description, "trail shoes"
    )
    assert search.arguments["press_enter"] is True
    assert search.targets["selector"].role == "searchbox"
    assert search.targets["selector"].name == "Search products"
    assert search.targets["selector"].xpath == "//input[@id='search-box']"
    code = generate_module(plan, "find_products")
    assert "mmid" not in code


def test_harvest_stops_at_a_choice_among_page_content() -> None:
    pick = tool_round(
        "c4",
        "click",
        {"selector": "[mmid='9']"},
        'Clicked <a href="/p/tb2">Trail Blazer 2</a>. Page navigated to http://shop.test/p/tb2.',
    )
    plan = plan_skill(
        parse_messages(
            shop_log("find trail shoes and open the cheapest", OPEN, DOM, SEARCH, pick), "x.json"
        )
    )
    assert [s.primitive for s in plan.steps] == ["open_url", "enter_text"]
    assert "choice among page content" in plan.ended_because


def test_a_link_named_in_the_command_becomes_a_parameter() -> None:
    pick = tool_round(
        "c4",
        "click",
        {"selector": "[mmid='9']"},
        'Clicked <a href="/p/tb2">Trail Blazer 2</a>. Page navigated to http://shop.test/p/tb2.',
    )
    plan = plan_skill(parse_messages(shop_log("open Trail Blazer 2", OPEN, DOM, pick), "x"))
    assert plan.template == "open {link_name}"
    assert "await find(STEP_2, name=link_name)" in generate_module(plan, "open_product")


def test_failed_runs_and_logs_without_actions_are_not_harvested() -> None:
    failed = shop_log("find x", OPEN, answer="I could not find x. ##TERMINATE##")
    with pytest.raises(NotHarvestable, match="did not succeed"):
        plan_skill(parse_messages(failed, "f.json"))
    with pytest.raises(NotHarvestable, match="no reusable actions"):
        plan_skill(parse_messages(shop_log("open the shop", OPEN, DOM), "g.json"))


def test_an_other_agents_log_is_harvested() -> None:
    log = read_log(LOGS / "other_agent.json")
    assert log.command == "search for hiking boots"
    plan = plan_skill(log)
    assert plan.template == "search for {search_term}"
    assert [s.primitive for s in plan.steps] == ["open_url", "enter_text", "click"]
    # tags named next to each selector, not the other tags in the same free text
    assert plan.steps[1].arguments["selector"] == "#search-box"
    assert plan.steps[2].arguments["selector"] == "#search-submit"
    assert plan.steps[2].navigated_to == "/search?q=hiking+boots"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('[{"role": "user", "content": "x"', "is not valid JSON"),
        ('{"a": 1}', "holds no message list"),
        ('[{"content": "no role"}]', "is not a chat message"),
        ('[{"role": "assistant", "content": "hi"}]', "has no user message"),
    ],
)
def test_malformed_logs_name_the_file_and_the_problem(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(LogError, match=problem) as error:
        read_log(path)
    assert str(path) in str(error.value)


def test_generated_module_passes_ruff_and_imports(tmp_path: Path) -> None:
    plan = plan_skill(parse_messages(shop_log("find trail shoes", OPEN, DOM, SEARCH), "x.json"))
    path = tmp_path / "find_products.py"
    path.write_text(generate_module(plan, skill_name(plan.template)))
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(path)],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout
    imported = subprocess.run(
        [sys.executable, "-c", f"import runpy; runpy.run_path({str(path)!r})"],
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr


def routable(name: str, template: str) -> Skill:
    """A healthy, routable skill of one command template."""
    return Skill(
        name=name,
        module_path="x",
        shape="",
        status="healthy",
        routable=True,
        command_templates=json.dumps([template]),
    )


def test_router_matches_templates_and_reads_arguments() -> None:
    skill = routable("find_sort", "find {search_term} and sort by {sort_by}")
    found = route("Find  road shoes and sort by price: low to high.", [skill])
    assert found is not None
    assert found.arguments == {"search_term": "road shoes", "sort_by": "price: low to high"}
    assert route("find road shoes", [skill]) is None
    skill.status, skill.routable = "stale", False
    assert route("find road shoes and sort by rating", [skill]) is None
    # a template's doubled braces are a literal brace of the command
    braced = routable("label", "label the ticket {ticket} as {{urgent}}")
    found = route("label the ticket 42 as {urgent}", [braced])
    assert found is not None and found.arguments == {"ticket": "42"}


UNTRUSTED = st.text(min_size=1, max_size=40).filter(lambda s: s.strip() == s and len(s) >= 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(term=UNTRUSTED, label=UNTRUSTED, element_id=UNTRUSTED, extra=UNTRUSTED)
def test_untrusted_text_only_ever_lands_in_string_literals(
    term: str, label: str, element_id: str, extra: str
) -> None:
    command = f"find {term} in the shop {extra}"
    tag = Tag("input", {"id": element_id, "aria-label": label})
    attrs = " ".join(f'{k}="{v}"' for k, v in tag.attributes.items() if '"' not in v)
    dom = tool_round(
        "c2",
        "get_dom",
        {"content_type": "input_fields"},
        f'Page "S" at http://shop.test/\n[4] searchbox {json.dumps(label)}',
    )
    typed = tool_round(
        "c3",
        "enter_text",
        {"selector": "[mmid='4']", "text": term},
        f"Text {term!r} entered in <input {attrs}>. Page navigated to http://shop.test/s.",
    )
    try:
        plan = plan_skill(parse_messages(shop_log(command, OPEN, dom, typed), "p.json"))
    except NotHarvestable:
        return  # nothing stable to act on: no module at all
    code = generate_module(plan, skill_name(plan.template))
    tree = ast.parse(code)
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)}
    allowed = {
        skill_name(plan.template),
        "Annotated",
        "str",
        "Target",
        "done",
        "expect",
        "find",
        "said",
        "enter_text",
        "open_url",
        "start_url",
        "True",
        "STEP_2",
    } | {p.name for p in plan.params}
    assert names <= allowed
    calls = [
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    ]
    assert set(calls) <= {"open_url", "enter_text", "find", "expect", "done", "Target", "Annotated"}
    for value in (term, label, command):
        if value in code:
            assert any(isinstance(v, str) and value in v for v in literals)
