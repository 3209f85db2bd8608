"""LLMClient for any OpenAI-compatible endpoint (OpenAI, gateways, vLLM, Ollama, llama.cpp).

Uses native tool calls, or with ``text_actions=True`` the plain-text action format
of :mod:`browser_agent.llm.text_actions`. Transient failures (rate limits, server
errors, timeouts, connection errors) are retried by the openai SDK a bounded number of
times with exponential backoff and jitter, honouring Retry-After; each retry is logged
(:mod:`browser_agent.llm.retry_log`).

A self-hosted server (``base_url`` given) is asked once for the model's context window
and tokenizer (:mod:`browser_agent.llm.model_window`); an answer is then kept within a
quarter of that window, and ends before a second call written as a JSON line, so a
small model that rambles or writes out a whole plan stops instead of thinking for
minutes. A model on this machine waits longer by default, and one that such a server on
this machine runs costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import openai

from browser_agent.llm.model_window import (
    ModelWindow,
    answer_room,
    default_timeout_s,
    is_loopback,
    probe_window,
)
from browser_agent.llm.retry_log import RetryLogTransport, attempts_of_call
from browser_agent.llm.text_actions import (
    WRITTEN_CALL_END,
    parse_text_action,
    to_text_messages,
    written_calls,
)
from browser_agent.llm.types import LLMError, LLMReply, ToolCall, Usage

logger = logging.getLogger("browser_agent.llm")

PLACEHOLDER_API_KEY = "not-needed"
# Where a first call written as a JSON line ends and a second begins; the server leaves
# the stop text out, and text_actions.written_calls closes the first call again.
NEXT_WRITTEN_CALL = WRITTEN_CALL_END + '\n{"name"'


class OpenAIClient:
    """Chat completions through ``openai.AsyncOpenAI``, whose bounded retries are logged."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,
        max_retries: int = 4,
        text_actions: bool = False,
        max_tokens: int | None = None,
    ):
        self.name = model
        self.text_actions = text_actions
        self.max_retries = max_retries
        self.timeout_s = timeout_s if timeout_s is not None else default_timeout_s(base_url)
        self.max_tokens = max_tokens
        self._loopback = is_loopback(base_url)
        self._base_url = base_url
        self._window: ModelWindow | None = None
        transport = RetryLogTransport(f"LLM {model}", max_retries, self.timeout_s)
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY,
            timeout=self.timeout_s,
            max_retries=max_retries,
            http_client=openai.DefaultAsyncHttpxClient(transport=transport),
        )
        self._label = transport.label = f"LLM {model} at {self._client.base_url}"

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """One chat completion; tool calls native or parsed from the text action block."""
        request: dict[str, Any] = {"model": self.name}
        window = (await self.model_window()).context_tokens
        if window:  # a model server's own limit (hosted APIs differ in how they take one)
            request["max_tokens"] = answer_room(window, self.max_tokens or window)
            if tools:  # one call an answer: a small model stops before writing out a plan
                request["stop"] = [NEXT_WRITTEN_CALL]
        if self.text_actions:
            request["messages"] = to_text_messages(messages, tools)
        else:
            request["messages"] = messages
            if tools:
                request["tools"] = tools
        response = await self._create(request)
        message = self._message(response)
        usage = Usage(
            prompt_tokens=_count(getattr(response, "usage", None), "prompt_tokens"),
            completion_tokens=_count(getattr(response, "usage", None), "completion_tokens"),
        )
        names = {tool["function"]["name"] for tool in tools}
        if self.text_actions:
            reasoning, call = parse_text_action(message.content or "")
            if call is None:  # a call written in another shape than the action block
                reasoning, calls = written_calls(reasoning, names)
                call = calls[-1] if calls else None
            return LLMReply(
                content=reasoning or None, tool_calls=[call] if call else [], usage=usage
            )
        content, calls = message.content, self._native_calls(message)
        if not calls and content and tools:  # a small model writing its call as text
            text, calls = written_calls(content, names)
            content = text or None if calls else content
        return LLMReply(content=content, tool_calls=calls, usage=usage)

    @property
    def local(self) -> bool:
        """True when the model runs on this machine: the server on a loopback address
        reports the window it runs it with, as a model server (not a gateway) does."""
        return self._loopback and self._window is not None and bool(self._window.context_tokens)

    async def model_window(self) -> ModelWindow:
        """The model's window and tokenizer as a self-hosted server reports them, asked
        once; nothing known for OpenAI's own API (no base URL) or a server that says nothing."""
        if self._window is None:
            self._window = ModelWindow()
            if self._base_url:
                self._window = await asyncio.to_thread(probe_window, self._base_url, self.name)
                if self._window.context_tokens:
                    logger.info(
                        "%s: context window %d tokens%s",
                        self._label,
                        self._window.context_tokens,
                        ", the server's tokenizer" if self._window.tokenizer else "",
                    )
        return self._window

    def _message(self, response: Any) -> Any:
        """The first choice's message; LLMError when the answer is not a chat completion
        (an HTML page from a proxy, a body of another shape)."""
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise LLMError(
                f"{self._label} answered with {_what(response)}, not a chat completion: "
                "is the base URL that of an OpenAI-compatible API (usually ending in /v1)?"
            )
        if not choices:
            raise LLMError(f"{self._label} returned no choices")
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if message is None or not isinstance(content, str | None):
            raise LLMError(f"{self._label} answered a choice with no readable message")
        return message

    def _native_calls(self, message: Any) -> list[ToolCall]:
        """The function tool calls of a completion message; missing ids become call_1,
        call_2, ...; LLMError when a call is not shaped as the OpenAI API says."""
        items = getattr(message, "tool_calls", None) or []
        if not isinstance(items, list):
            raise LLMError(f"{self._label} answered with tool_calls that are not a list")
        calls = []
        for index, item in enumerate(items, start=1):
            function = getattr(item, "function", None)
            if function is None:
                continue
            name, arguments = getattr(function, "name", None), getattr(function, "arguments", "")
            if not isinstance(name, str):
                raise LLMError(f"{self._label} answered a tool call with no name")
            if not isinstance(arguments, str | None):
                raise LLMError(
                    f"{self._label} sent the arguments of {name} as {_what(arguments)}, "
                    "not as JSON text as the OpenAI API requires"
                )
            calls.append(
                ToolCall(getattr(item, "id", None) or f"call_{index}", name, arguments or "")
            )
        return calls

    async def aclose(self) -> None:
        """Close the underlying HTTP connections."""
        await self._client.close()

    async def _create(self, request: dict[str, Any]) -> Any:
        """Call the endpoint (the SDK retries transient failures); LLMError when it fails."""
        with attempts_of_call() as attempts:
            try:
                return await self._client.chat.completions.create(**request)
            except openai.APIError as exc:
                reason = self._retry_reason(exc)
                if reason is None:
                    raise self._permanent_error(exc) from exc
                tries = max(attempts.sent, 1)
                raise LLMError(
                    f"{self._label} failed after {tries} attempt{'s' * (tries != 1)}: {reason}",
                    status_code=getattr(exc, "status_code", None),
                    code=exc.code,
                ) from exc

    def _retry_reason(self, exc: openai.APIError) -> str | None:
        """Why a failure was worth retrying, or None when it is not transient."""
        if isinstance(exc, openai.APITimeoutError):
            return f"timed out after {self.timeout_s}s"
        if isinstance(exc, openai.APIConnectionError):
            return f"connection error ({exc.__cause__ or exc})"
        if isinstance(exc, openai.RateLimitError):
            return f"rate limited (HTTP 429: {_message(exc)})"
        if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
            return f"server error (HTTP {exc.status_code}: {_message(exc)})"
        return None

    def _permanent_error(self, exc: openai.APIError) -> LLMError:
        """An LLMError for a failure that retrying would not fix (bad request, auth, ...)."""
        status = getattr(exc, "status_code", None)
        what = f"HTTP {status}" if status else type(exc).__name__
        if exc.code:
            what += f" {exc.code}"
        return LLMError(
            f"{self._label} rejected the request ({what}): {_message(exc)}",
            status_code=status,
            code=exc.code,
        )


def _message(exc: openai.APIError) -> str:
    """The error message from the response body, without the SDK's "Error code: N - " prefix."""
    if isinstance(exc.body, dict) and isinstance(exc.body.get("message"), str):
        return exc.body["message"]
    return exc.message


def _what(value: Any) -> str:
    """A few words for an unexpected value from an endpoint, never the value itself."""
    if isinstance(value, str):
        return "an HTML page" if value.lstrip()[:1] == "<" else "plain text"
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list):
        return "a JSON list"
    return "an empty answer" if value is None else f"a {type(value).__name__}"


def _count(usage: Any, name: str) -> int:
    """A token count of the usage, 0 when the endpoint does not give it as a number."""
    value = getattr(usage, name, 0)
    return value if isinstance(value, int) else 0
