"""A self-hosted model server's own window and tokenizer (llama.cpp's /props and /tokenize),
played by the local test server: the real client reads them, answers stay within a quarter
of the window, a long task fits the window the server reports (not the configured limit)
by the server's own count, a model such a server runs on this machine costs nothing, and a
model on this machine is waited for longer by default."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.llm.model_window import (
    ModelWindow,
    _window_in_models,
    is_loopback,
    probe_window,
)
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.testing.openai_server import (
    LLMTestServer,
    estimate_tokens,
    start_test_llm_server,
)
from tests.scripted import Script
from tests.test_memory_long_task import COMMAND, Tour

WINDOW = 8_000
CHARS_PER_TOKEN = 3  # denser than the 4 characters a token the product estimates

OPEN = {
    "type": "function",
    "function": {"name": "open_url", "parameters": {"type": "object", "properties": {}}},
}


def open_shop(messages: list[dict], tools: list[dict]) -> LLMReply:
    return LLMReply(None, [ToolCall("call_1", "open_url", '{"url": "http://127.0.0.1:9/"}')])


@pytest.fixture
def llama() -> Iterator[LLMTestServer]:
    """The test server playing llama-server: a window and a tokenizer of its own."""
    with start_test_llm_server(open_shop) as server:
        server.context_tokens = WINDOW
        server.chars_per_token = CHARS_PER_TOKEN
        yield server


def test_the_window_and_tokenizer_are_read_from_the_server(llama: LLMTestServer) -> None:
    window = probe_window(llama.base_url, "test-model")
    assert window.context_tokens == WINDOW
    assert window.tokenizer is not None
    assert window.tokenizer.text("abcdefg") == 3  # the server's count, not 7 // 4
    assert window.tokenizer.text("abcdefg") == 3 and len(llama.requests) == 0


def test_a_window_in_the_model_listing_counts_too() -> None:
    """vLLM's /v1/models says max_model_len; llama-server's says meta.n_ctx."""
    vllm = {"data": [{"id": "other", "max_model_len": 9}, {"id": "m", "max_model_len": 32_768}]}
    assert _window_in_models(vllm, "m") == 32_768
    assert _window_in_models({"data": [{"id": "x", "meta": {"n_ctx": 4096}}]}, "m") == 4096
    assert _window_in_models(vllm, "unknown") is None  # two models, neither named
    assert _window_in_models({"data": [{"id": "m", "max_model_len": "big"}]}, "m") is None
    assert _window_in_models({"data": [{"id": "m", "max_model_len": True}]}, "m") is None
    assert _window_in_models("<html>", "m") is None


def test_a_server_that_says_nothing_leaves_the_settings_standing() -> None:
    with start_test_llm_server(open_shop) as plain:
        assert probe_window(plain.base_url, "test-model") == ModelWindow()
    assert probe_window("http://127.0.0.1:9/v1", "test-model") == ModelWindow()  # refused


async def test_an_answer_is_kept_within_a_quarter_of_the_window(llama: LLMTestServer) -> None:
    client = OpenAIClient("test-model", base_url=llama.base_url)
    await client.complete([{"role": "user", "content": "go"}], [OPEN])
    await client.complete([{"role": "user", "content": "go"}], [OPEN])
    await client.aclose()
    assert [body["max_tokens"] for body in llama.requests] == [WINDOW // 4] * 2
    assert all(body["stop"] == ['}}\n{"name"'] for body in llama.requests)
    assert client.local
    reserved = OpenAIClient("test-model", base_url=llama.base_url, max_tokens=300)
    await reserved.complete([{"role": "user", "content": "go"}], [OPEN])
    await reserved.aclose()
    assert llama.requests[-1]["max_tokens"] == 300

    with start_test_llm_server(open_shop) as plain:
        client = OpenAIClient("test-model", base_url=plain.base_url)
        await client.complete([{"role": "user", "content": "go"}], [OPEN])
        await client.aclose()
        assert "max_tokens" not in plain.requests[0] and "stop" not in plain.requests[0]
        assert not client.local


def test_a_model_on_this_machine_is_waited_for_longer() -> None:
    assert OpenAIClient("m", base_url="http://127.0.0.1:8090/v1").timeout_s == 600
    assert OpenAIClient("m", base_url="http://localhost:8090/v1").timeout_s == 600
    assert OpenAIClient("m", base_url="http://[::1]:8090/v1").timeout_s == 600
    assert OpenAIClient("m", base_url="https://api.example.com/v1").timeout_s == 60
    assert OpenAIClient("m", base_url="http://127.0.0.1:8090/v1", timeout_s=5).timeout_s == 5
    assert is_loopback("http://127.3.4.5/v1") and not is_loopback("http://10.0.0.1/v1")


async def test_a_long_task_fits_the_window_the_server_reports(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    """The configured limit is the default 128,000 tokens; the server runs the model with
    8,000 and counts 3 characters a token: every request must fit by the server's count."""
    settings = settings.with_overrides(summary_token_limit=300)
    tour = Tour(demo.url)
    with start_test_llm_server(tour) as server:
        server.context_tokens = server.max_context_tokens = WINDOW
        server.chars_per_token = CHARS_PER_TOKEN
        client = OpenAIClient("test-model", base_url=server.base_url, max_retries=0)
        result = await run_command(
            COMMAND, client, settings, start_url=demo.url, max_steps=80, browser=browser
        )
        await client.aclose()
    planner = [body for body in server.requests if body.get("tools")]
    assert result.status == "succeeded", result.answer
    assert result.steps >= 60
    assert server.violations == [], "no request exceeded the window the server reported"
    reserve = WINDOW // 4
    sizes = [estimate_tokens(b["messages"], b["tools"], CHARS_PER_TOKEN) for b in planner]
    assert max(sizes) <= WINDOW - reserve
    assert all(body["max_tokens"] == reserve for body in server.requests)
    assert any(not body.get("tools") for body in server.requests), "older steps summarized"


def test_a_run_on_a_model_server_on_this_machine_says_its_model_and_costs_nothing(
    settings: Settings, demo: DemoSite
) -> None:
    script = Script(
        [("open_url", lambda _dom: {"url": f"{demo.url}/search?q=trail"})],
        answer="Opened the trail shoes.",
    )
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_API_KEY": "local",
        "BROWSER_AGENT_LLM_MODEL": "qwen-local",
        "COLUMNS": "200",
    }
    with start_test_llm_server(script, model="qwen-local") as server:
        server.context_tokens = 8_192
        environ["BROWSER_AGENT_LLM_BASE_URL"] = server.base_url
        as_json = CliRunner().invoke(app, ["run", "look at trail shoes", "--json"], env=environ)
        summary = CliRunner().invoke(app, ["run", "look at trail shoes"], env=environ)
    result = json.loads(as_json.stdout)
    assert result["status"] == "succeeded" and result["prompt_tokens"] > 0
    assert result["cost_usd"] == 0.0 and result["model"] == "qwen-local"
    [totals] = [line for line in summary.output.splitlines() if line.startswith("run ")]
    assert "LLM calls (qwen-local)" in totals and "tokens, $0, " in totals
