"""A local OpenAI-compatible chat completions server for tests and benchmarks (stdlib only).

Answers come from a policy function ``(messages, tools) -> LLMReply`` (by default the
offline planner) so the real ``openai`` client path is exercised end to end. One-shot
faults can be injected (bad JSON arguments, arguments as a JSON object instead of text, an
unknown tool, HTTP 429 and 500, HTTP 200 with an HTML page, a slow answer), and an
optional context limit records every request that would not fit a real model. Like
llama.cpp's ``llama-server`` it can report the window it runs the model with (``GET
/props``, ``meta.n_ctx`` in ``/v1/models``) and tokenize (``POST /tokenize``) at its own
``chars_per_token``, by which it then measures every request.
When a request carries no ``tools`` (text-actions mode), the policy's tool calls
are rendered into the content as action blocks, as a plain-text model would write them.

    with start_test_llm_server(policy) as server:
        client = OpenAIClient("test-model", base_url=server.base_url)
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.text_actions import render_action
from browser_agent.llm.types import LLMReply
from browser_agent.testing.background import BackgroundServer

logger = logging.getLogger("browser_agent.testing.openai_server")

Policy = Callable[[list[dict], list[dict]], LLMReply]

FAULTS = (
    "bad_json_arguments",
    "object_arguments",
    "unknown_tool",
    "http_429",
    "http_500",
    "html_200",
    "slow",
)
HTML_PAGE = "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"
UNKNOWN_TOOL_NAME = "no_such_tool"


def estimate_tokens(messages: list[dict], tools: list[dict], chars_per_token: int = 4) -> int:
    """Rough prompt size: characters of the JSON of messages plus tools, divided by 4 (or
    by the server's own ``chars_per_token``)."""
    return (len(json.dumps(messages)) + len(json.dumps(tools))) // chars_per_token


@dataclass
class ContextViolation:
    """A request larger than ``max_context_tokens``; it was answered with HTTP 400."""

    estimated_tokens: int
    max_context_tokens: int
    request: dict


@dataclass
class Fault:
    """A one-shot fault for the next request; ``seconds`` is the delay of a ``slow`` fault,
    or the ``Retry-After`` an HTTP error asks for (a hundredth of a second when not given)."""

    kind: str
    seconds: float | None = None


@dataclass
class Answer:
    """An HTTP answer: status, body (a JSON object, or text sent as an HTML page) and extra
    headers."""

    status: int
    body: dict | str
    headers: dict[str, str] | None = None


class LLMTestServer(BackgroundServer):
    """The server state and logic; HTTP runs in a daemon thread on ``host:port`` (0 = any free)."""

    def __init__(
        self,
        policy: Policy | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "test-model",
    ):
        self.policy = policy
        self.model = model
        self.requests: list[dict] = []
        self.violations: list[ContextViolation] = []
        self.latency_s = 0.0
        self.max_context_tokens: int | None = None
        self.context_tokens: int | None = None  # the window /props and /v1/models report
        self.chars_per_token: int | None = None  # a /tokenize at this rate; None: no /tokenize
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        httpd = _HTTPServer((host, port), _Handler)
        httpd.llm_server = self
        super().__init__(httpd, name="llm-test-server")

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    def inject(self, fault: str, seconds: float | None = None) -> None:
        """Queue a one-shot fault, applied to the next chat request (faults queue up in order)."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; choose one of {', '.join(FAULTS)}")
        with self._lock:
            self._faults.append(Fault(fault, seconds))

    def stop(self) -> None:
        """Stop serving, wake sleeping handlers, and release the port."""
        self._stopping.set()
        super().stop()

    def models(self) -> Answer:
        """The GET /v1/models answer: the one model this server plays."""
        model: dict[str, Any] = {
            "id": self.model,
            "object": "model",
            "created": 0,
            "owned_by": "test-server",
        }
        if self.context_tokens is not None:
            model["meta"] = {"n_ctx": self.context_tokens}
        return Answer(200, {"object": "list", "data": [model]})

    def props(self) -> Answer:
        """The GET /props answer of llama-server: the window, when one is set."""
        if self.context_tokens is None:
            return _error(404, "no route for GET /props")
        settings = {"n_ctx": self.context_tokens}
        return Answer(200, {"default_generation_settings": settings, "total_slots": 1})

    def tokenize(self, body: Any) -> Answer:
        """The POST /tokenize answer of llama-server: one token id per ``chars_per_token``
        characters of ``content``, when a rate is set."""
        if self.chars_per_token is None:
            return _error(404, "no route for POST /tokenize")
        if not isinstance(body, dict) or not isinstance(body.get("content"), str):
            return _error(400, "'content' must be a string")
        count = -(-len(body["content"]) // self.chars_per_token)
        return Answer(200, {"tokens": list(range(count))})

    def chat(self, body: Any) -> Answer:
        """Answer a chat completions request: validate, record, apply faults, ask the policy."""
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "request body must be a JSON object with a 'messages' list")
        if body.get("stream"):
            return _error(400, "streaming is not supported by the test server")
        messages, tools = body["messages"], body.get("tools") or []
        tokens = estimate_tokens(messages, tools, self.chars_per_token or 4)
        with self._lock:
            self.requests.append(body)
            number = len(self.requests)
            too_long = self.max_context_tokens is not None and tokens > self.max_context_tokens
            if too_long:
                self.violations.append(ContextViolation(tokens, self.max_context_tokens, body))
            fault = self._faults.popleft() if self._faults and not too_long else None
        self._stopping.wait(
            self.latency_s + ((fault.seconds or 5.0) if fault and fault.kind == "slow" else 0)
        )
        retry_after = fault.seconds if fault and fault.seconds is not None else 0.01
        if too_long:
            message = f"{tokens} estimated tokens exceed the limit of {self.max_context_tokens}"
            return _error(400, message, code="context_length_exceeded")
        if fault and fault.kind == "http_429":
            return _error(
                429,
                "Rate limit reached (injected fault)",
                "requests",
                "rate_limit_exceeded",
                retry_after,
            )
        if fault and fault.kind == "http_500":
            return _error(
                500, "Internal server error (injected fault)", "server_error", None, retry_after
            )
        if fault and fault.kind == "html_200":
            return Answer(200, HTML_PAGE)
        try:
            reply = self._ask_policy(messages, tools)
        except Exception as exc:  # the policy is test code: report its failure, keep serving
            logger.exception("test LLM policy failed")
            return _error(500, f"policy failed: {type(exc).__name__}: {exc}", "server_error")
        if fault and fault.kind in ("bad_json_arguments", "unknown_tool"):
            reply = _corrupt_first_call(reply, fault.kind)
        completion = self._completion(body, reply, tokens, number)
        if fault and fault.kind == "object_arguments":
            _arguments_as_objects(completion)
        return Answer(200, completion)

    def _ask_policy(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """The policy's reply; without a policy the offline planner answers."""
        policy = self.policy or OfflinePlanner()
        return policy(messages, tools)

    def _completion(self, body: dict, reply: LLMReply, prompt_tokens: int, number: int) -> dict:
        """A chat.completion for the reply; tool calls become text when no tools were sent."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls and not body.get("tools"):
            blocks = [render_action(call) for call in reply.tool_calls]
            message["content"] = "\n\n".join(([reply.content] if reply.content else []) + blocks)
        elif reply.tool_calls:
            message["tool_calls"] = [call.to_dict() for call in reply.tool_calls]
        completion_chars = len(message["content"] or "") + sum(
            len(call.name) + len(call.arguments) for call in reply.tool_calls
        )
        completion_tokens = max(1, completion_chars // 4)
        return {
            "id": f"chatcmpl-test-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def start_test_llm_server(
    policy: Policy | None = None, port: int = 0, model: str = "test-model"
) -> LLMTestServer:
    """Start a test LLM server on 127.0.0.1 (port 0: any free port) answering with ``policy``.

    With ``policy=None`` the offline planner answers, so end-to-end tests need no
    hand-written answers.
    """
    return LLMTestServer(policy, port=port, model=model)


def _corrupt_first_call(reply: LLMReply, kind: str) -> LLMReply:
    """Corrupt the reply's first tool call (a no-op when the reply has none)."""
    if not reply.tool_calls:
        return reply
    first, *rest = reply.tool_calls
    if kind == "bad_json_arguments":
        arguments = first.arguments.strip()
        first = replace(first, arguments=arguments[: len(arguments) // 2] or "{")
    elif kind == "unknown_tool":
        first = replace(first, name=UNKNOWN_TOOL_NAME)
    return replace(reply, tool_calls=[first, *rest])


def _arguments_as_objects(completion: dict) -> None:
    """Send each tool call's arguments as a JSON object, as some servers wrongly do."""
    for call in completion["choices"][0]["message"].get("tool_calls", []):
        function = call["function"]
        function["arguments"] = json.loads(function["arguments"] or "{}")


def _error(
    status: int,
    message: str,
    kind: str = "invalid_request_error",
    code: str | None = None,
    retry_after_s: float | None = None,
) -> Answer:
    """An OpenAI-style error answer; an injected 429 or 500 says when to retry, in seconds
    (``Retry-After``, rounded up) and milliseconds (``retry-after-ms``, which the SDK reads
    first), so the tests' retries wait only as long as they ask."""
    headers = None
    if retry_after_s is not None:
        headers = {
            "Retry-After": str(math.ceil(retry_after_s)),
            "retry-after-ms": str(round(retry_after_s * 1000)),
        }
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return Answer(status, body, headers)


class _HTTPServer(ThreadingHTTPServer):
    """The stdlib threading server, holding the LLMTestServer its handlers answer for."""

    llm_server: LLMTestServer


class _Handler(BaseHTTPRequestHandler):
    """HTTP plumbing: route, parse JSON, write the Answer."""

    server: _HTTPServer

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path == "/v1/models":
            self._send(self.server.llm_server.models())
        elif path == "/props":
            self._send(self.server.llm_server.props())
        else:
            self._send(_error(404, f"no route for GET {self.path}"))

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/tokenize"):
            self._send(_error(404, f"no route for POST {self.path}"))
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            self._send(_error(400, f"request body is not valid JSON: {exc}"))
            return
        llm = self.server.llm_server
        self._send(llm.tokenize(body) if path == "/tokenize" else llm.chat(body))

    def _send(self, answer: Answer) -> None:
        html = isinstance(answer.body, str)
        data = answer.body.encode() if html else json.dumps(answer.body).encode()
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", "text/html" if html else "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (answer.headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            logger.debug("client went away before the answer (e.g. it timed out)")

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.address_string(), *args)
