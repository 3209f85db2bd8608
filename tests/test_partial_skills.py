"""A skill says only what it does: Agent-E's own log of "find nothing phone 2 on amazon and
sort the results by best seller" (its click on an <option> is how it chooses one) becomes a
skill that searches and sorts; when its run sorted in a way the harvester cannot replay,
the skill is partial, says it does not sort, is listed so and is never routed. The shop
is a page on 127.0.0.1 with the markup the log quotes (Amazon's search box and sort menu)."""

from __future__ import annotations

import copy
import html
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote_plus, urlparse

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.harvest.harvester import harvest
from browser_agent.harvest.logs import parse_messages, read_log
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.planner.router import decide
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.run_store import open_run_store
from browser_agent.store.skill_use import current_skills

LOGS = Path(__file__).parent / "logs"
LOG = "agent_e_amazon_sort.json"
RECORDED_AT = "https://www.amazon.com"
COMMAND = "find nothing phone 2 on amazon and sort the results by best seller"
SORTS = [
    ("relevanceblender", "Featured"),
    ("price-asc-rank", "Price: Low to High"),
    ("price-desc-rank", "Price: High to Low"),
    ("review-rank", "Avg. Customer Review"),
    ("date-desc-rank", "Newest Arrivals"),
    ("exact-aware-popularity-rank", "Best Sellers"),
]
SEARCH_BOX = (
    '<form action="/s/ref=nb_sb_noss" method="GET" name="site-search" role="search">'
    '<input type="text" id="twotabsearchtextbox" value="{value}" name="field-keywords" '
    'autocomplete="off" placeholder="Search Amazon" aria-label="Search Amazon">'
    '<input type="submit" id="nav-search-submit-button" value="Go" aria-label="Go"></form>'
)


def results_page(query: str, sort: str) -> str:
    """A results page: the search box, the count, the sort menu (choosing reloads the page
    sorted), the results."""
    label = dict(SORTS).get(sort, "Featured")
    options = "".join(
        f'<option value="{value}"{" selected" if value == sort else ""}>{text}</option>'
        for value, text in SORTS
    )
    shown = html.escape(query)
    return (
        f"<title>Amazon.com : {shown}</title>{SEARCH_BOX.format(value=shown)}"
        f'<span>1-16 of 229 results for "{shown}"</span>'
        '<form method="get" action="/s"><span id="a-autoid-0-announce">'
        f"<span>Sort by:</span><span>{label}</span></span>"
        '<select name="s" autocomplete="off" id="s-result-sort-select" '
        f'aria-labelledby="a-autoid-0-announce" data-k="{shown}" onchange="location.href = '
        "'/s?k=' + encodeURIComponent(this.dataset.k).replace(/%20/g, '+') + '&amp;s=' + "
        "this.value + '&amp;ref=sr_st_' + this.value\">"
        f"{options}</select></form>"
        f"<ul><li><a href='/dp/1'>{shown} 12GB RAM 256GB Dark Grey</a></li>"
        f"<li><a href='/dp/2'>{shown} 8GB RAM 128GB White</a></li></ul>"
    )


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    """The shop on a free port of 127.0.0.1: its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = parse_qs(url.query)
            if url.path.startswith("/s/ref="):  # the search form: on to the results
                term = query.get("field-keywords", [""])[0]
                self.send_response(302)
                self.send_header("Location", f"/s?k={quote_plus(term)}&ref=nb_sb_noss")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if url.path == "/s":
                body = results_page(
                    query.get("k", [""])[0], query.get("s", ["relevanceblender"])[0]
                )
            else:
                home = "<title>Amazon.com. Spend less. Smile more.</title>"
                body = home + SEARCH_BOX.format(value="")
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def the_log() -> dict:
    return json.loads((LOGS / LOG).read_text(encoding="utf-8"))


def messages_of(data: dict) -> list[dict]:
    (messages,) = data.values()
    return messages


def answer(data: dict, name: str, text: str) -> None:
    """Give the last call of tool ``name`` the answer ``text``."""
    messages = messages_of(data)
    ids = [
        call["id"]
        for m in messages
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == name
    ]
    for m in messages:
        if m.get("role") == "tool" and m["tool_responses"][0]["tool_call_id"] == ids[-1]:
            m["content"] = m["tool_responses"][0]["content"] = text


def sorted_by_its_own_menu(data: dict) -> None:
    """The run as Agent-E makes it when it opens Amazon's own drop-down (a span) instead of
    choosing the option: new elements appear, its answer quotes no element, then it clicks
    the menu's "Best Sellers" link."""
    messages = messages_of(data)
    click = next(
        m
        for m in messages
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == "click"
    )
    click["tool_calls"][0]["function"]["arguments"] = json.dumps(
        {"selector": "[mmid='439']", "wait_before_execution": 0.0}
    )
    answer(
        data,
        "click",
        "Success: Executed JavaScript Click on element with selector: [mmid='439'].\n As a "
        "consequence of this action, new elements have appeared in view: [{'tag': 'a', "
        "'content': 'Featured'}, {'tag': 'a', 'content': 'Best Sellers'}]. This means that "
        "the action to click [mmid='439'] is not yet executed and needs further interaction. "
        "Get all_fields DOM to complete the interaction.",
    )
    at = messages.index(click) + 2
    menu = {
        "role": "WebArea",
        "name": "Amazon.com : nothing phone 2",
        "children": [
            {"name": "Featured", "mmid": "1199", "tag": "a", "text": "Featured"},
            {"name": "Best Sellers", "mmid": "1204", "tag": "a", "text": "Best Sellers"},
        ],
    }
    second = (
        "Executed JavaScript Click on element with selector: [mmid='1204'] The clicked "
        'element\'s outer HTML is: <a id="s-result-sort-select_5" href="javascript:void(0)">.'
    )
    messages[at:at] = [
        call_message("9aR1", "get_dom_with_content_type", {"content_type": "all_fields"}),
        tool_message("9aR1", json.dumps(menu)),
        call_message("9aR2", "click", {"selector": "[mmid='1204']"}),
        tool_message("9aR2", second),
    ]


def call_message(call_id: str, name: str, arguments: dict) -> dict:
    function = {"arguments": json.dumps(arguments), "name": name}
    return {
        "content": None,
        "tool_calls": [{"id": f"call_{call_id}", "function": function, "type": "function"}],
        "role": "assistant",
    }


def tool_message(call_id: str, content: str) -> dict:
    responses = [{"tool_call_id": f"call_{call_id}", "role": "tool", "content": content}]
    return {"content": content, "tool_responses": responses, "role": "tool"}


def shop_copy(data: dict, shop: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    target = into / LOG
    target.write_text(json.dumps(data).replace(RECORDED_AT, shop), encoding="utf-8")
    return target


def plan_of(data: dict):  # type: ignore[no-untyped-def]
    return plan_skill(parse_messages(messages_of(data), LOG))


# ------------------------------------------------------------------------- the plans


def test_agent_es_click_on_an_option_is_choosing_it_in_its_select() -> None:
    log = read_log(LOGS / LOG)
    assert log.command == COMMAND and log.dropped == []
    plan = plan_skill(log)
    assert plan.complete and plan.lacks == "" and plan.left_out == []
    assert [s.primitive for s in plan.steps] == [
        "open_url",
        "enter_text_and_click",
        "select_option",
    ]
    assert plan.steps[-1].arguments["option"] == "exact-aware-popularity-rank"
    assert plan.template == "find {search_amazon} on amazon and sort the results by best seller"


@pytest.mark.parametrize("seen", ["as the DOM showed it", "new elements appeared", "never shown"])
def test_every_answer_agent_e_gives_an_option_click_is_a_choice(seen: str) -> None:
    data = the_log()
    if seen == "new elements appeared":
        answer(
            data,
            "click",
            'Success: Select menu option "exact-aware-popularity-rank" selected.\n As a '
            "consequence of this action, new elements have appeared in view: [{'tag': 'span', "
            "'content': 'Best Sellers'}]. This means that the action to click [mmid='437'] is "
            "not yet executed and needs further interaction. Get all_fields DOM to complete "
            "the interaction.",
        )
    elif seen == "never shown":  # its model looked at the text only before choosing
        for message in messages_of(data):
            for call in message.get("tool_calls") or []:
                if '"input_fields"' in call["function"]["arguments"]:
                    call["function"]["arguments"] = json.dumps({"content_type": "text_only"})
        answer(data, "get_dom_with_content_type", '1-16 of 229 results for "nothing phone 2"')
    plan = plan_of(data)
    assert plan.complete, plan.left_out
    (chosen,) = [s for s in plan.steps if s.primitive == "select_option"]
    assert chosen.arguments["option"] == "exact-aware-popularity-rank"


def test_a_run_sorted_by_a_menu_the_harvester_cannot_read_gives_a_partial_skill() -> None:
    data = the_log()
    sorted_by_its_own_menu(data)
    plan = plan_of(data)
    assert not plan.complete
    assert plan.lacks == "sort the results by best seller"
    assert plan.done_template == "find {search_amazon} on amazon"
    assert [s.primitive for s in plan.steps] == ["open_url", "enter_text_and_click"]
    assert plan.left_out and "never routed" in plan.left_out[0]


# ------------------------------------------------------ harvested, replayed and listed


async def test_the_log_becomes_a_skill_that_searches_and_sorts(
    settings: Settings, browser: Browser, shop: str
) -> None:
    engine = open_store(settings)
    path = shop_copy(the_log(), shop, settings.workspace / "foreign")
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    assert result.dropped == []
    skill = result.skill
    assert skill.complete
    assert json.loads(skill.example_args) == {"search_amazon": "nothing phone 2"}
    assert skill.expected_end.startswith("/s?k=nothing+phone+2&s=exact-aware-popularity-rank")
    routed = decide("find pixel 8 on amazon and sort the results by best seller", [skill], shop)
    assert routed.route is not None and routed.route.arguments == {"search_amazon": "pixel 8"}


async def test_a_partial_skill_says_what_it_does_not_do_and_is_never_routed(
    settings: Settings, browser: Browser, shop: str
) -> None:
    engine = open_store(settings)
    data = the_log()
    sorted_by_its_own_menu(data)
    path = shop_copy(data, shop, settings.workspace / "foreign")
    (result,) = await harvest([path], settings, engine, browser=browser)
    assert result.error is None and result.verified, result.verify_error
    skill = result.skill
    assert not skill.complete
    assert skill.name == "find_amazon"  # the full command's skill is find_amazon_sort_results
    assert "Partial: it does not sort the results by best seller." in skill.docstring
    assert skill.docstring.startswith("Find {search_amazon} on amazon.")
    first_line = (result.code or "").split('"""')[1].splitlines()[0]  # the module's docstring
    assert first_line == "Harvested skill find_amazon: find {search_amazon} on amazon"
    # every call of the log is in the skill or named in the report with its reason
    (reported,) = result.dropped
    assert "2 actions from where the skill ends (click, click)" in reported
    rows = current_skills(open_run_store(settings))
    routed = decide("find pixel 8 on amazon and sort the results by best seller", rows, shop)
    assert routed.route is None

    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "250"}
    listed = CliRunner().invoke(app, ["skills", "--json"], env=env)
    (shown,) = json.loads(listed.stdout)["skills"]
    assert shown["partial"] is True and shown["lacks"] == "sort the results by best seller"
    table = CliRunner().invoke(app, ["skills"], env=env)
    assert "partial, never routed: it does not sort the results by best seller" in table.stdout
    one = CliRunner().invoke(app, ["skills", "show", skill.name], env=env)
    assert "it does not sort the results by best seller" in one.stdout
    as_json = json.loads(
        CliRunner().invoke(app, ["skills", "show", skill.name, "--json"], env=env).stdout
    )
    assert as_json["lacks"] == "sort the results by best seller"


def test_an_untouched_copy_of_the_log_is_what_the_tests_read() -> None:
    """The variants are made in memory: the fixture stays Agent-E's log as it wrote it."""
    before = the_log()
    sorted_by_its_own_menu(copy.deepcopy(before))
    assert before == the_log()


def test_a_failed_attempt_is_named_in_the_report_with_its_reason() -> None:
    data = the_log()
    messages = messages_of(data)
    click = next(
        m
        for m in messages
        for call in m.get("tool_calls") or []
        if call["function"]["name"] == "click"
    )
    at = messages.index(click)
    failed = (
        "Unable to click element with selector: \"[mmid='4370']\" since the selector is "
        "invalid. Proceed by retrieving DOM again.. Error: Timeout 2000ms exceeded."
    )
    messages[at:at] = [
        call_message("9aP1", "click", {"selector": "[mmid='4370']"}),
        tool_message("9aP1", failed),
    ]
    plan = plan_of(data)
    assert plan.complete
    (said,) = plan.failed
    assert said.startswith("call 6 (click) left out: it failed and the run went on without it")
