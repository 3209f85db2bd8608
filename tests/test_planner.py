"""The planner loop end to end: real openai client, test LLM server, real Chromium, demo site."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.planner.tool_calls import BASIC_TOOLS
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.scripted import Script, mmid, search_and_sort

COMMAND = "find trail shoes in the shop and sort by best seller"


@pytest.fixture
def llm_server() -> LLMTestServer:
    with start_test_llm_server() as server:
        yield server


def client(server: LLMTestServer) -> OpenAIClient:
    return OpenAIClient("test-model", base_url=server.base_url)


def rows(settings: Settings, sql: str) -> list[tuple]:
    with sqlite3.connect(settings.workspace / "browser_agent.db") as db:
        return db.execute(sql).fetchall()


async def test_search_and_sort_through_the_openai_client(
    settings: Settings, browser: Browser, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    llm_server.policy = search_and_sort(demo.url, "trail shoes", "Best seller")
    result = await run_command(
        COMMAND, client(llm_server), settings, start_url=demo.url, browser=browser
    )
    assert result.status == "succeeded"
    assert result.final_url == f"{demo.url}/search?q=trail+shoes&sort=best_seller"
    assert result.answer == "Searched for trail shoes and sorted by Best seller."
    assert (result.steps, result.llm_calls) == (5, 6)
    assert result.prompt_tokens > 1000 and result.completion_tokens > 0

    log = json.loads(Path(result.log_path).read_text())
    assert [m["role"] for m in log] == ["system", "user"] + ["assistant", "tool"] * 6
    assert f'"{COMMAND}"' in log[1]["content"]
    for call_message, tool_message in zip(log[2::2], log[3::2], strict=False):
        (call,) = call_message["tool_calls"]
        assert call["type"] == "function"
        json.loads(call["function"]["arguments"])
        (response,) = tool_message["tool_responses"]
        assert response["tool_call_id"] == call["id"] == tool_message["tool_call_id"]
        assert response["content"] == tool_message["content"]
    assert log[-2]["tool_calls"][0]["function"]["name"] == "finish"
    assert log[-1]["content"] == "Finished."

    steps = rows(settings, "SELECT tool, arguments, response, ok FROM step ORDER BY `index`")
    calls = [m["tool_calls"][0]["function"] for m in log[2:-2:2]]
    assert [(s[0], s[1]) for s in steps] == [(c["name"], c["arguments"]) for c in calls]
    assert [s[2] for s in steps] == [m["content"] for m in log[3:-2:2]]
    run = rows(
        settings, "SELECT status, steps, llm_calls, command, final_url, prompt_tokens FROM run"
    )
    assert run == [("succeeded", 5, 6, COMMAND, result.final_url, result.prompt_tokens)]
    ((step_tokens, step_calls),) = rows(
        settings, "SELECT sum(prompt_tokens), sum(llm_calls) FROM step"
    )
    assert step_calls == 5 and 0 < step_tokens < result.prompt_tokens  # the answer made no step
    meta = json.loads(Path(result.log_path).with_suffix(".meta.json").read_text())
    assert meta["id"] == result.run_id and meta["status"] == "succeeded"
    iterations = Path(result.log_path).with_suffix(".iterations.jsonl").read_text().splitlines()
    assert len(iterations) == 6
    first = json.loads(iterations[0])
    assert first["context"][1]["content"] == log[1]["content"]
    assert first["actions"][0]["function"]["name"] == "open_url"


@pytest.mark.parametrize("fault", ["bad_json_arguments", "unknown_tool", "http_429", "http_500"])
async def test_injected_faults_are_recovered(
    settings: Settings, browser: Browser, demo: DemoSite, llm_server: LLMTestServer, fault: str
) -> None:
    llm_server.policy = search_and_sort(demo.url, "trail shoes", "Best seller")
    llm_server.inject(fault)
    result = await run_command(
        COMMAND, client(llm_server), settings, start_url=demo.url, browser=browser
    )
    assert result.status == "succeeded"
    assert result.final_url.endswith("sort=best_seller")
    log_text = Path(result.log_path).read_text()
    if fault == "bad_json_arguments":
        assert "are not valid JSON" in log_text
    if fault == "unknown_tool":
        assert "there is no tool named 'no_such_tool'" in log_text


async def test_exhausted_retries_end_the_run_as_failed_with_the_log_kept(
    settings: Settings, browser: Browser, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    llm_server.policy = search_and_sort(demo.url, "trail shoes", "Best seller")
    for _ in range(5):
        llm_server.inject("http_500")
    llm = OpenAIClient("m", base_url=llm_server.base_url, max_retries=2)
    result = await run_command(COMMAND, llm, settings, start_url=demo.url, browser=browser)
    assert result.status == "failed"
    assert "The model call failed" in result.answer
    assert Path(result.log_path).exists()
    assert rows(settings, "SELECT status, error FROM run")[0][0] == "failed"


async def test_consecutive_failures_end_the_run(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    def clicks_nothing(messages: list[dict], tools: list[dict]) -> LLMReply:
        n = len(messages)
        return LLMReply(None, [ToolCall(f"c{n}", "click", json.dumps({"selector": f"#no{n}"}))])

    settings = settings.with_overrides(action_timeout_ms=200)
    result = await run_command(
        "click the missing button",
        FunctionClient(clicks_nothing),
        settings,
        start_url=demo.url,
        browser=browser,
    )
    assert result.status == "failed"
    assert result.steps == 5
    assert "5 tool calls in a row failed" in rows(settings, "SELECT error FROM run")[0][0]


async def test_a_looping_model_is_warned_then_stopped(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    seen: list[str] = []

    def loops(messages: list[dict], tools: list[dict]) -> LLMReply:
        seen.append(messages[-1].get("content") or "")
        return LLMReply(None, [ToolCall(f"c{len(messages)}", "get_url", "{}")])

    result = await run_command("where am I", FunctionClient(loops), settings, browser=browser)
    assert result.status == "failed"
    assert any("you are looping" in text for text in seen)
    assert result.steps == 4


async def test_calls_after_a_page_change_in_a_batch_are_not_run_blind(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    script = Script(
        [
            ("open_url", lambda _d: {"url": demo.url}),
            ("get_dom", lambda _d: {"content_type": "input_fields"}),
            ("click", lambda d: {"selector": mmid('link "Login"')(d)}),
            ("click", lambda d: {"selector": mmid('link "Deals"')(d)}),
            ("get_dom", lambda _d: {"content_type": "input_fields"}),
        ],
        batch=3,
    )
    result = await run_command("open login", FunctionClient(script), settings, browser=browser)
    log = json.loads(Path(result.log_path).read_text())
    skipped = [m for m in log if (m.get("content") or "").startswith("Not executed")]
    # the Deals click of the batch was held back after Login navigated; the get_dom after
    # it still ran, so the model saw the new page and clicked Deals there
    assert len(skipped) == 1
    assert f"now {demo.url}/login" in skipped[0]["content"]
    after = log[log.index(skipped[0]) + 1]
    assert after["role"] == "tool" and after["content"].startswith('Page "Log in')
    assert result.status == "succeeded"
    assert result.final_url == f"{demo.url}/login"


async def test_password_appears_nowhere_in_logs_or_database(
    settings: Settings, browser: Browser, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    llm_server.policy = Script(
        [
            ("open_url", lambda _d: {"url": f"{demo.url}/login"}),
            ("get_dom", lambda _d: {"content_type": "input_fields"}),
            ("enter_text", lambda d: {"selector": mmid('textbox "Username"')(d), "text": "demo"}),
            (
                "enter_text",
                lambda d: {"selector": mmid('textbox "Password"')(d), "text": "secret123"},
            ),
            ("click", lambda d: {"selector": mmid('button "Log in"')(d)}),
        ]
    )
    result = await run_command(
        "log in as demo with password secret123", client(llm_server), settings, browser=browser
    )
    assert result.status == "succeeded"
    assert result.final_url == f"{demo.url}/account"
    written = list(settings.workspace.rglob("*"))
    assert any(p.name.endswith(".iterations.jsonl") for p in written)
    for path in written:
        if path.is_file():
            assert b"secret123" not in path.read_bytes(), path
    assert "********" in Path(result.log_path).read_text()


async def test_ask_user_without_a_person_says_nobody_is_there(
    settings: Settings, browser: Browser
) -> None:
    script = Script([("ask_user", lambda _d: {"question": "Which size?"})])
    result = await run_command("buy shoes", FunctionClient(script), settings, browser=browser)
    log = json.loads(Path(result.log_path).read_text())
    assert log[3]["content"].startswith("Nobody is available to answer")


async def test_empty_command_is_refused(settings: Settings) -> None:
    with pytest.raises(ValueError, match="The command is empty"):
        await run_command("  ", FunctionClient(lambda m, t: LLMReply("x")), settings)


async def test_the_basic_tool_set_offers_a_small_model_only_what_most_tasks_need(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    script = search_and_sort(demo.url, "trail shoes", "Best seller")
    offered: list[set[str]] = []

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        offered.append({tool["function"]["name"] for tool in tools})
        return script(messages, tools)

    basic = settings.with_overrides(llm_tools="basic")
    result = await run_command(
        COMMAND, FunctionClient(model), basic, start_url=demo.url, browser=browser
    )
    assert result.status == "succeeded", result.answer
    assert offered and all(names == set(BASIC_TOOLS) for names in offered)
    assert {"hover", "bulk_enter_text", "ask_user"}.isdisjoint(BASIC_TOOLS)
    every: list[set[str]] = []

    def sees_all(messages: list[dict], tools: list[dict]) -> LLMReply:
        every.append({tool["function"]["name"] for tool in tools})
        return LLMReply("done", [ToolCall("c1", "finish", '{"answer": "x", "success": false}')])

    await run_command("where am I", FunctionClient(sees_all), settings, browser=browser)
    assert set(BASIC_TOOLS) < every[0] and {"hover", "ask_user"} <= every[0]


async def test_a_run_whose_calls_share_one_id_and_that_looked_with_find_elements_is_harvested(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    """Every text action comes back as call_1: the run gives each call an id of its own, so
    the log pairs each answer with its call; find_elements is looking, as get_dom is."""
    script = search_and_sort(demo.url, "trail shoes", "Price: low to high")
    script.actions.insert(2, ("find_elements", lambda _dom: {"query": "search box"}))

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        reply = script(messages, tools)
        same = [ToolCall("call_1", call.name, call.arguments) for call in reply.tool_calls]
        return LLMReply(reply.content, same, reply.usage)

    command = "search for trail shoes and sort by price low to high"
    result = await run_command(
        command, FunctionClient(model), settings, start_url=demo.url, browser=browser
    )
    assert result.status == "succeeded", result.answer
    log = json.loads(Path(result.log_path).read_text())
    ids = [call["id"] for m in log if m.get("tool_calls") for call in m["tool_calls"]]
    assert len(ids) == 7 and len(set(ids)) == 7
    answered = [m["tool_call_id"] for m in log if m["role"] == "tool"]
    assert answered == ids
    (made,) = await harvest(
        [Path(result.log_path)], settings, open_store(settings), browser=browser
    )
    assert made.skill is not None, made.error
    assert made.skill.status == "healthy", made.verify_error
