"""Other agents' logs harvested: Agent-E's AutoGen message lists and browser-use's saved
agent history, in their real shapes, mapped onto the primitives and replayed on the demo
shop; unknown tools and parameters dropped with a reason; typed passwords kept out of
everything the harvester writes."""

from __future__ import annotations

import inspect
import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import browser_session
from browser_agent.demo_site import DemoSite
from browser_agent.harvest.calls import LogError
from browser_agent.harvest.elements import Tag, element_record, find_tags, tag_for_selector
from browser_agent.harvest.harvester import harvest, plan_from
from browser_agent.harvest.logs import command_of, parse_messages, read_log
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import NotHarvestable
from browser_agent.secrets import MASK
from browser_agent.settings import Settings
from browser_agent.skills.primitive import PRIMITIVES
from browser_agent.skills.replay import NEEDS_SECRET
from browser_agent.skills.stored import load_skill
from browser_agent.store.db import open_store

LOGS = Path(__file__).parent / "logs"
RECORDED_AT = "127.0.0.1:8811"  # the demo shop's default address, where the logs were made
FOREIGN_NAMES = ("text_to_enter", "query_selector", "key_combination", "entry", "index")


def shop_copy(name: str, demo: DemoSite, into: Path, edit: Any = None) -> Path:
    """A fixture log (and the metadata beside it) pointed at the running demo shop;
    ``edit`` may change the parsed log first."""
    into.mkdir(parents=True, exist_ok=True)
    address = urlsplit(demo.url).netloc
    data = json.loads((LOGS / name).read_text(encoding="utf-8"))
    if edit is not None:
        edit(data)
    target = into / name
    target.write_text(json.dumps(data).replace(RECORDED_AT, address), encoding="utf-8")
    meta = (LOGS / name).with_suffix(".meta.json")
    if meta.exists():
        target.with_suffix(".meta.json").write_text(meta.read_text(encoding="utf-8"))
    return target


def agent_e_messages(data: dict) -> list[dict]:
    """The one message list of an Agent-E log (kept under the executor agent's name)."""
    (messages,) = data.values()
    return messages


def tool_call(data: dict, name: str) -> dict:
    """The function part of the first call of tool ``name`` in an Agent-E log."""
    for message in agent_e_messages(data):
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == name:
                return call["function"]
    raise AssertionError(f"no {name} call")


def insert_call(data: dict, before: str, name: str, arguments: dict, answer: str) -> None:
    """Put a call of tool ``name`` (with its answer) before the first call of ``before``."""
    messages = agent_e_messages(data)
    at = next(
        i
        for i, m in enumerate(messages)
        if any(c["function"]["name"] == before for c in m.get("tool_calls") or [])
    )
    function = {"arguments": json.dumps(arguments), "name": name}
    messages[at:at] = [
        {
            "content": None,
            "role": "assistant",
            "tool_calls": [{"id": "call_x", "function": function, "type": "function"}],
        },
        {
            "content": answer,
            "role": "tool",
            "tool_responses": [{"tool_call_id": "call_x", "role": "tool", "content": answer}],
        },
    ]


async def run_skill(skill: Any, settings: Settings, browser: Browser, **arguments: str) -> str:
    """Run a harvested skill in a fresh context; the URL it ends on."""
    function = load_skill(skill)
    async with browser_session(settings, browser) as active:
        await function(**arguments)
        return active.current_page().url


def everything_written(settings: Settings, result: Any) -> str:
    """Every text the harvest wrote: the module, the skill files, every database row."""
    parts = [result.code or ""]
    parts += [p.read_text(encoding="utf-8") for p in settings.harvested_dir.glob("*.py")]
    database = next(settings.workspace.glob("*.db"))
    with sqlite3.connect(database) as connection:
        parts += list(connection.iterdump())
    return "\n".join(parts)


# ------------------------------------------------------------------------- the command


@pytest.mark.parametrize(
    ("first_message", "command"),
    [
        (
            'Execute the user task "Enter "Agustina" into the text field and press Submit" '
            "using the appropriate agent. Current Page: http://127.0.0.1:8811/, Title: "
            '"Home" page',
            'Enter "Agustina" into the text field and press Submit',
        ),
        (
            'Execute the user task "Search for "trail shoes" and sort by price" Current URL: '
            "http://x/",
            'Search for "trail shoes" and sort by price',
        ),
        (
            'Execute the user task "send the message "Hi" as Ada" starting at http://x/. '
            "Current date and time: 2025-01-01",
            'send the message "Hi" as Ada',
        ),
        ('Execute the user task "open "Trail Blazer 2""', 'open "Trail Blazer 2"'),
        ("Execute the user task \u201copen Trail Blazer 2\u201d now", "open Trail Blazer 2"),
        ("find trail shoes", "find trail shoes"),
        (
            "Enter trail shoes in the search box and search Current Page: http://x/, Title: Home",
            "Enter trail shoes in the search box and search",
        ),
    ],
)
def test_the_command_is_not_cut_at_a_quote_inside_it(first_message: str, command: str) -> None:
    assert command_of(first_message) == command


def test_the_command_from_the_run_metadata_wins(tmp_path: Path) -> None:
    log = tmp_path / "run.json"
    log.write_text((LOGS / "agent_e_search.json").read_text(encoding="utf-8"))
    log.with_suffix(".meta.json").write_text(json.dumps({"command": "search the shop"}))
    assert read_log(log).command == "search the shop"


# --------------------------------------------------------------- HTML in the responses


def test_quoted_html_is_read_by_a_parser() -> None:
    text = (
        "Success. Text \"x\" set successfully in the element with selector [mmid='21'] and "
        'outer HTML: <input id="search-box" name="q" placeholder="Search &quot;all&quot;">. '
        "Executed JavaScript Click on element with selector: [mmid='22'] The clicked "
        'element\'s outer HTML is: <button id="search-submit" type="submit">.\n'
        "Later: <a href='/cart'>Cart <b>(2)</b></a> and <span>Add</span>"
    )
    tags = find_tags(text)
    assert [(t.tag, t.text) for t in tags] == [
        ("input", ""),
        ("button", ""),  # left open by the text: no text of its own
        ("a", "Cart (2)"),
        ("b", "(2)"),
        ("span", "Add"),
    ]
    assert tags[0].attributes["placeholder"] == 'Search "all"'
    assert tags[2].attributes == {"href": "/cart"}
    assert [text[t.start : t.start + 3] for t in tags] == ["<in", "<bu", "<a ", "<b>", "<sp"]
    assert tag_for_selector(text, "[mmid='22']").attributes["id"] == "search-submit"
    assert find_tags("5 < 6 and 7 > 3") == []


def test_an_element_known_by_its_text_alone_is_found_by_role_and_name() -> None:
    (tag,) = find_tags("Clicked <button>Add to cart</button>.")
    record = element_record(tag, None, None)
    assert record is not None
    assert record.selector == 'role=button[name="Add to cart"]'
    assert (record.role, record.name, record.xpath) == (
        "button",
        "Add to cart",
        "//button[normalize-space()='Add to cart']",
    )
    assert element_record(Tag("button", {}, "Search"), "button", None).name == "Search"


# ----------------------------------------------------------------------------- Agent-E


def test_every_agent_e_tool_maps_onto_a_primitive_with_its_parameter_names() -> None:
    log = read_log(LOGS / "agent_e_search.json")
    login = read_log(LOGS / "agent_e_login.json")
    names = [c.name for c in log.calls + login.calls]
    assert names == [
        "open_url",
        "get_dom",
        "enter_text_and_click",
        "get_url",
        "get_dom",
        "select_option",  # Agent-E clicks an <option>: that selects it
        "get_url",
        "open_url",
        "get_dom",
        "enter_text",  # bulk_enter_text: one per field
        "enter_text",
        "click",
        "get_url",
    ]
    for call in log.calls + login.calls:
        parameters = set(inspect.signature(PRIMITIVES[call.name]).parameters)
        assert set(call.arguments) <= parameters, call
    search = log.calls[2].arguments
    assert search == {
        "text_selector": "[mmid='21']",
        "text": "trail shoes",
        "click_selector": "[mmid='22']",
    }
    assert log.calls[5].arguments == {"selector": "[mmid='27']", "option": "price_asc"}
    assert '[22] button "Search"' in log.calls[1].response
    assert log.dropped == [] and login.dropped == []


def test_agent_e_keys_hover_and_enter_instead_of_click() -> None:
    def call(name: str, arguments: dict, answer: str) -> list[dict]:
        function = {"name": name, "arguments": json.dumps(arguments)}
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": name, "function": function}],
            },
            {"role": "tool", "tool_call_id": name, "content": answer},
        ]

    messages = [
        {
            "role": "user",
            "content": 'Execute the user task "find boots" using the appropriate agent.',
        },
        *call("press_key_combination", {"key_combination": "Control+A"}, "Key combination done"),
        *call("hover_on_element", {"selector": "[mmid='9']"}, "Hovered on element [mmid='9']"),
        *call(
            "enter_text_and_click",
            {
                "text_selector": "[mmid='21']",
                "text_to_enter": "boots",
                "click_selector": "[mmid='21']",
            },
            "Success. Text \"boots\" set successfully in the element with selector [mmid='21'] "
            'and outer HTML: <input id="search-box" name="q">. Instead of click, pressed the '
            "Enter key successfully on element: \"[mmid='21']\".",
        ),
        {"role": "assistant", "content": "Done. ##TERMINATE TASK##"},
    ]
    log = parse_messages(messages, "keys.json")
    assert [(c.name, c.arguments) for c in log.calls] == [
        ("press_key_combination", {"keys": "Control+A"}),
        ("hover", {"selector": "[mmid='9']"}),
        ("enter_text", {"selector": "[mmid='21']", "text": "boots", "press_enter": True}),
    ]


def test_other_agents_argument_names_never_become_parameter_names() -> None:
    for name in ("agent_e_search.json", "agent_e_login.json", "browser_use_search.json"):
        plan = plan_skill(read_log(LOGS / name))
        code = generate_module(plan, "skill")
        names = {p.name for p in plan.params}
        assert names.isdisjoint({"text", "option", "selector", *FOREIGN_NAMES}), names
        for foreign in FOREIGN_NAMES[:3]:
            assert foreign not in code
        assert "mmid" not in code


def test_an_unknown_tool_or_parameter_drops_the_call_with_a_reason(tmp_path: Path) -> None:
    data = json.loads((LOGS / "agent_e_search.json").read_text(encoding="utf-8"))
    insert_call(data, "geturl", "solve_captcha", {"kind": "image"}, "Captcha solved.")
    tool_call(data, "click")["arguments"] = json.dumps(
        {"selector": "[mmid='30']", "wait_before_execution": 0.0, "modifiers": ["Shift"]}
    )
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))
    plan = plan_from(path)
    assert plan.dropped == [
        "call 4 (solve_captcha) dropped: solve_captcha is not a tool the harvester knows",
        "call 7 (click) dropped: click was called with 'modifiers', which the harvester "
        "does not know",
    ]
    assert [s.primitive for s in plan.steps] == ["open_url", "enter_text_and_click"]
    assert not plan.complete  # it may do less than the run did: never routed to directly


def test_a_log_left_with_nothing_says_what_was_dropped(tmp_path: Path) -> None:
    data = json.loads((LOGS / "agent_e_login.json").read_text(encoding="utf-8"))
    tool_call(data, "bulk_enter_text")["arguments"] = json.dumps({"entries": "username"})
    tool_call(data, "click")["arguments"] = json.dumps({"selector": "[mmid='32']", "button": 2})
    path = tmp_path / "nothing.json"
    path.write_text(json.dumps(data))
    with pytest.raises(NotHarvestable, match="no reusable actions") as raised:
        plan_from(path)
    assert "bulk_enter_text was not called with a list of entries" in str(raised.value)
    assert "click was called with 'button'" in str(raised.value)


def test_this_projects_call_with_an_unknown_parameter_is_dropped() -> None:
    function = {"name": "click", "arguments": json.dumps({"selector": "#go", "force": True})}
    messages = [
        {"role": "user", "content": 'Execute the user task "go" starting at http://x/.'},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "function": function}]},
        {"role": "tool", "tool_call_id": "1", "content": 'Clicked <button id="go">Go</button>.'},
        {"role": "assistant", "content": "Done ##TERMINATE##"},
    ]
    log = parse_messages(messages, "own.json")
    assert log.calls == []
    assert log.dropped == ["call 1 (click) dropped: click has no parameter 'force'"]


# ------------------------------------------------------------------------- browser-use


def test_browser_use_history_becomes_calls_on_the_elements_it_recorded() -> None:
    log = read_log(LOGS / "browser_use_search.json")
    assert log.command == "find trail shoes and sort by price low to high"
    assert log.succeeded and log.final_answer.startswith("Searched for trail shoes")
    assert [(c.name, c.arguments) for c in log.calls] == [
        ("open_url", {"url": "http://127.0.0.1:8811/"}),
        ("enter_text", {"selector": "[mmid='7']", "text": "trail shoes"}),
        ("click", {"selector": "[mmid='8']"}),
        ("select_option", {"selector": "[mmid='9']", "option": "Price: low to high"}),
    ]
    click = tag_for_selector(log.calls[2].response, "[mmid='8']")
    assert (click.tag, click.attributes["id"], click.text) == ("button", "search-submit", "Search")
    assert log.calls[2].response.endswith(
        "Page navigated to http://127.0.0.1:8811/search?q=trail+shoes."
    )


def test_browser_use_history_without_its_task_says_where_to_put_it(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_text((LOGS / "browser_use_search.json").read_text(encoding="utf-8"))
    with pytest.raises(LogError, match=r"history\.meta\.json"):
        read_log(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "task": "find trail shoes"}))
    assert read_log(path).command == "find trail shoes"


def later_release(data: dict) -> None:
    """The same run as later browser-use releases save it: flat model output, renamed
    actions, element records with node_name and x_path."""
    renamed = {"go_to_url": "navigate", "input_text": "input", "click_element_by_index": "click"}
    for step in data["history"]:
        output = step["model_output"]
        output.update(output.pop("current_state"))
        output["action"] = [
            {renamed.get(name, name): params}
            for action in output["action"]
            for name, params in action.items()
        ]
        step["state"]["interacted_element"] = [
            None
            if e is None
            else {
                "node_type": 1,
                "node_value": "",
                "node_name": e["tag_name"].upper(),
                "attributes": e["attributes"],
                "x_path": e["xpath"],
            }
            for e in step["state"]["interacted_element"]
        ]
        step["state_message"] = None


def test_a_later_browser_use_release_reads_the_same(tmp_path: Path) -> None:
    data = json.loads((LOGS / "browser_use_search.json").read_text(encoding="utf-8"))
    later_release(data)
    path = tmp_path / "later.json"
    path.write_text(json.dumps(data))
    path.with_suffix(".meta.json").write_text(json.dumps({"task": "find trail shoes"}))
    original = read_log(LOGS / "browser_use_search.json")
    log = read_log(path)
    assert [(c.name, c.arguments) for c in log.calls] == [
        (c.name, c.arguments) for c in original.calls
    ]
    assert tag_for_selector(log.calls[1].response, "[mmid='7']").attributes["id"] == "search-box"


def test_unknown_browser_use_actions_are_dropped_with_a_reason() -> None:
    data = json.loads((LOGS / "browser_use_search.json").read_text(encoding="utf-8"))
    step = data["history"][1]
    step["model_output"]["action"].insert(0, {"open_tab": {"url": "http://127.0.0.1:8811/"}})
    step["result"].insert(0, {"is_done": False, "extracted_content": "Opened new tab"})
    step["state"]["interacted_element"].insert(0, None)
    step["model_output"]["action"][2]["click_element_by_index"]["right_click"] = True
    from browser_agent.harvest.foreign import read_browser_use

    log = read_browser_use(data, "x.json", {"command": "find trail shoes"})
    assert log.dropped == [
        "step 2 action 1 (open_tab) dropped: open_tab is not an action the harvester knows",
        "step 2 action 3 (click_element_by_index) dropped: click_element_by_index was called "
        "with 'right_click', which the harvester does not know",
    ]
    assert [c.name for c in log.calls] == ["open_url", "enter_text", "select_option"]


# ------------------------------------------------------------------------------ secrets


def test_a_password_typed_into_a_password_field_is_masked_in_the_log() -> None:
    log = read_log(LOGS / "agent_e_login.json")
    assert log.command == f"log in as demo with password {MASK}"
    assert "secret123" not in json.dumps(
        [log.command, log.final_answer, [(c.arguments, c.response) for c in log.calls]]
    )
    assert log.calls[3].arguments == {"selector": "[mmid='31']", "text": MASK}
    plan = plan_skill(log)
    assert plan.template == "log in as {username} with password {password}"
    assert [(p.name, p.example) for p in plan.params] == [("username", "demo"), ("password", "")]


def test_browser_use_passwords_and_its_own_placeholders_are_masked() -> None:
    data = json.loads((LOGS / "browser_use_search.json").read_text(encoding="utf-8"))
    step = data["history"][1]
    field = step["state"]["interacted_element"][0]
    field["attributes"] = {"type": "password", "id": "password", "name": "password"}
    step["model_output"]["action"][0]["input_text"]["text"] = "hunter22"
    step["result"][0]["extracted_content"] = "\u2328\ufe0f  Input hunter22 into index 7"
    from browser_agent.harvest.foreign import read_browser_use
    from browser_agent.harvest.logs import mask_secrets

    log = mask_secrets(read_browser_use(data, "x.json", {"command": "log in with hunter22"}))
    assert "hunter22" not in json.dumps(
        [log.command, [(c.arguments, c.response) for c in log.calls]]
    )
    assert log.command == f"log in with {MASK}"
    step["model_output"]["action"][0]["input_text"]["text"] = "<secret>password</secret>"
    log = read_browser_use(data, "x.json", {"command": "log in"})
    assert log.calls[1].arguments["text"] == MASK


# ----------------------------------------------------------- harvested and replayed


async def test_agent_e_log_becomes_a_skill_that_replays(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    path = shop_copy("agent_e_search.json", demo, settings.workspace / "foreign")
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    skill = result.skill
    assert json.loads(skill.command_templates) == [
        'Search for "{search_term}" and sort by {sort_by}'
    ]
    assert json.loads(skill.example_args) == {
        "search_term": "trail shoes",
        "sort_by": "price low to high",
    }
    assert skill.expected_end == "/search?q=trail+shoes&sort=price_asc"
    assert skill.complete
    ended = await run_skill(
        skill, settings, browser, search_term="road", sort_by="Price: high to low"
    )
    assert ended == f"{demo.url}/search?q=road&sort=price_desc"


async def test_browser_use_history_becomes_a_skill_that_replays(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    path = shop_copy("browser_use_search.json", demo, settings.workspace / "foreign")
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    skill = result.skill
    assert json.loads(skill.command_templates) == ["find {search_term} and sort by {sort}"]
    assert skill.expected_end == "/search?q=trail+shoes&sort=price_asc"
    ended = await run_skill(skill, settings, browser, search_term="sandals", sort="rating")
    assert ended == f"{demo.url}/search?q=sandals&sort=rating"


async def test_agent_e_password_becomes_a_secret_parameter_kept_out_of_everything(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    path = shop_copy("agent_e_login.json", demo, settings.workspace / "foreign")
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.skill is not None and result.verify_error == NEEDS_SECRET
    skill = result.skill
    assert json.loads(skill.command_templates) == ["log in as {username} with password {password}"]
    assert json.loads(skill.example_args) == {"username": "demo", "password": ""}
    assert "password" in json.loads(skill.signature)["function"]["parameters"]["properties"]
    written = everything_written(settings, result)
    assert "secret123" not in written
    assert MASK in skill.docstring or "{password}" in skill.docstring
    ended = await run_skill(skill, settings, browser, username="demo", password="secret123")
    assert ended == f"{demo.url}/account"
    assert demo.submissions[-1] == {
        "form": "login",
        "fields": {"username": "demo", "password": "***"},
    }


async def test_a_log_with_dropped_calls_is_harvested_without_them(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    def odd(data: dict) -> None:
        insert_call(data, "geturl", "solve_captcha", {"kind": "image"}, "Captcha solved.")
        tool_call(data, "click")["arguments"] = json.dumps(
            {"selector": "[mmid='30']", "modifiers": ["Shift"]}
        )

    engine = open_store(settings)
    path = shop_copy("agent_e_search.json", demo, settings.workspace / "foreign", odd)
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    assert [reason.split(":")[0] for reason in result.dropped] == [
        "call 4 (solve_captcha) dropped",
        "call 7 (click) dropped",
    ]
    assert not result.skill.complete
    assert result.skill.expected_end == "/search?q=trail+shoes"
