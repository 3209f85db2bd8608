"""The local OpenAI-compatible test server, spoken to over raw HTTP to check its wire format."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from browser_agent.llm import LLMReply, ToolCall
from browser_agent.testing.openai_server import (
    UNKNOWN_TOOL_NAME,
    LLMTestServer,
    estimate_tokens,
    start_test_llm_server,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "click",
            "description": "Click an element.",
            "parameters": {"type": "object", "properties": {"selector": {"type": "string"}}},
        },
    }
]
MESSAGES = [{"role": "user", "content": "Click the button."}]
CLICK = ToolCall("call_7", "click", '{"selector": "[mmid=\'12\']"}')


def click_policy(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A scripted model that clicks once, then answers when it sees a tool result."""
    if messages[-1]["role"] == "tool":
        return LLMReply("Clicked it. ##TERMINATE##")
    return LLMReply(None, [CLICK])


@pytest.fixture
def server() -> Iterator[LLMTestServer]:
    with start_test_llm_server(click_policy) as running:
        yield running


def request(
    server: LLMTestServer, path: str, body: Any = None, raw: bytes | None = None
) -> tuple[int, dict[str, str], dict]:
    """Send GET (no body) or POST (JSON body or raw bytes); return status, headers, JSON body."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.base_url + path, data=data)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def chat(server: LLMTestServer, messages: list[dict] = MESSAGES, **extra: Any) -> tuple:
    return request(server, "/chat/completions", {"model": "m", "messages": messages, **extra})


def test_tool_call_completion_shape(server: LLMTestServer) -> None:
    status, _, body = chat(server, tools=TOOLS)

    assert status == 200
    assert body["id"] == "chatcmpl-test-1"
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == "m"
    [choice] = body["choices"]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [CLICK.to_dict()],
    }
    prompt_tokens = estimate_tokens(MESSAGES, TOOLS)
    assert body["usage"]["prompt_tokens"] == prompt_tokens
    assert body["usage"]["completion_tokens"] == (len("click") + len(CLICK.arguments)) // 4
    assert body["usage"]["total_tokens"] == prompt_tokens + body["usage"]["completion_tokens"]


def test_content_completion_and_request_log(server: LLMTestServer) -> None:
    history = [*MESSAGES, {"role": "tool", "tool_call_id": "call_7", "content": "Clicked."}]

    chat(server, tools=TOOLS)
    status, _, body = chat(server, history, tools=TOOLS)

    assert status == 200
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Clicked it. ##TERMINATE##",
    }
    assert [r["messages"] for r in server.requests] == [MESSAGES, history]


def test_tool_calls_become_action_text_without_tools(server: LLMTestServer) -> None:
    status, _, body = chat(server)

    assert status == 200
    message = body["choices"][0]["message"]
    assert "tool_calls" not in message
    assert message["content"] == (
        '```action\n{"name": "click", "arguments": {"selector": "[mmid=\'12\']"}}\n```'
    )
    assert body["choices"][0]["finish_reason"] == "stop"


def test_models_endpoint(server: LLMTestServer) -> None:
    status, _, body = request(server, "/models")

    assert status == 200
    assert body["object"] == "list"
    assert [model["id"] for model in body["data"]] == ["test-model"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"model": "m"}', "'messages' list"),
        (b"[1, 2]", "'messages' list"),
        (b'{"messages": [], "stream": true}', "streaming"),
    ],
)
def test_malformed_requests_get_400_and_serving_goes_on(
    server: LLMTestServer, raw: bytes, message: str
) -> None:
    status, _, body = request(server, "/chat/completions", raw=raw)

    assert status == 400
    assert message in body["error"]["message"]
    assert body["error"]["type"] == "invalid_request_error"
    assert chat(server, tools=TOOLS)[0] == 200


def test_unknown_route_is_404(server: LLMTestServer) -> None:
    assert request(server, "/embeddings", {"input": "x"})[0] == 404


def test_injected_http_errors(server: LLMTestServer) -> None:
    server.inject("http_429")
    server.inject("http_500")

    status_429, headers, body_429 = chat(server, tools=TOOLS)
    status_500, _, body_500 = chat(server, tools=TOOLS)

    assert status_429 == 429
    assert headers["Retry-After"] == "1"
    assert headers["retry-after-ms"] == "10"
    assert body_429["error"]["code"] == "rate_limit_exceeded"
    assert status_500 == 500
    assert body_500["error"]["type"] == "server_error"
    assert chat(server, tools=TOOLS)[0] == 200
    assert len(server.requests) == 3


def test_injected_bad_json_and_unknown_tool(server: LLMTestServer) -> None:
    server.inject("bad_json_arguments")
    server.inject("unknown_tool")

    bad = chat(server, tools=TOOLS)[2]["choices"][0]["message"]["tool_calls"][0]["function"]
    unknown = chat(server, tools=TOOLS)[2]["choices"][0]["message"]["tool_calls"][0]["function"]

    assert CLICK.arguments.startswith(bad["arguments"])
    with pytest.raises(json.JSONDecodeError):
        json.loads(bad["arguments"])
    assert bad["name"] == "click"
    assert unknown == {"name": UNKNOWN_TOOL_NAME, "arguments": CLICK.arguments}


def test_injected_slow_answer_and_latency(server: LLMTestServer) -> None:
    server.inject("slow", seconds=0.3)
    started = time.monotonic()
    assert chat(server, tools=TOOLS)[0] == 200
    slow = time.monotonic() - started

    server.latency_s = 0.2
    started = time.monotonic()
    assert chat(server, tools=TOOLS)[0] == 200
    delayed = time.monotonic() - started

    assert slow >= 0.3
    assert 0.2 <= delayed < 2


def test_unknown_fault_is_refused(server: LLMTestServer) -> None:
    with pytest.raises(ValueError, match="unknown fault 'http_418'"):
        server.inject("http_418")


def test_failing_policy_gives_500_and_serving_goes_on(server: LLMTestServer) -> None:
    calls = []

    def flaky(messages: list[dict], tools: list[dict]) -> LLMReply:
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("no plan")
        return LLMReply("ok")

    server.policy = flaky

    status, _, body = chat(server)

    assert status == 500
    assert "policy failed: KeyError" in body["error"]["message"]
    assert chat(server)[2]["choices"][0]["message"]["content"] == "ok"


def test_without_a_policy_the_offline_planner_answers() -> None:
    with start_test_llm_server() as server:
        status, _, body = chat(server, tools=TOOLS)

    assert status == 200
    message = body["choices"][0]["message"]
    assert message["content"] or message.get("tool_calls")


def test_context_limit_violations_are_recorded(server: LLMTestServer) -> None:
    tokens = estimate_tokens(MESSAGES, TOOLS)
    server.max_context_tokens = tokens

    assert chat(server, tools=TOOLS)[0] == 200  # exactly at the limit still fits
    long_messages = [{"role": "user", "content": "x" * 400}]
    status, _, body = chat(server, long_messages, tools=TOOLS)

    assert status == 400
    assert body["error"]["code"] == "context_length_exceeded"
    [violation] = server.violations
    assert violation.max_context_tokens == tokens
    assert violation.estimated_tokens == estimate_tokens(long_messages, TOOLS)
    assert violation.request["messages"] == long_messages


def test_stop_releases_the_port() -> None:
    with start_test_llm_server(click_policy) as server:
        assert chat(server)[0] == 200

    with pytest.raises(urllib.error.URLError):
        chat(server)
