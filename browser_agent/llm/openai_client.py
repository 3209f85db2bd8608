"""LLMClient for any OpenAI-compatible endpoint (OpenAI, gateways, vLLM, Ollama, llama.cpp).

Uses native tool calls, or with ``text_actions=True`` the plain-text action format
of :mod:`browser_agent.llm.text_actions`. Transient failures (rate limits, server
errors, timeouts, connection errors) are retried a bounded number of times with
exponential backoff and jitter, honouring Retry-After; each retry is logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from email.utils import parsedate_to_datetime
from time import time
from typing import Any

import openai

from browser_agent.llm.text_actions import parse_text_action, to_text_messages
from browser_agent.llm.types import LLMError, LLMReply, ToolCall, Usage

logger = logging.getLogger("browser_agent.llm")

PLACEHOLDER_API_KEY = "not-needed"


class OpenAIClient:
    """Chat completions through ``openai.AsyncOpenAI`` with our own bounded, logged retries."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60,
        max_retries: int = 4,
        text_actions: bool = False,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ):
        self.name = model
        self.text_actions = text_actions
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.timeout_s = timeout_s
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_API_KEY,
            timeout=timeout_s,
            max_retries=0,
        )
        self._label = f"LLM {model} at {self._client.base_url}"

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """One chat completion; tool calls native or parsed from the text action block."""
        request: dict[str, Any] = {"model": self.name}
        if self.text_actions:
            request["messages"] = to_text_messages(messages, tools)
        else:
            request["messages"] = messages
            if tools:
                request["tools"] = tools
        response = await self._create_with_retries(request)
        if not response.choices:
            raise LLMError(f"{self._label} returned no choices")
        message = response.choices[0].message
        usage = Usage(
            prompt_tokens=getattr(response.usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(response.usage, "completion_tokens", 0) or 0,
        )
        if self.text_actions:
            reasoning, call = parse_text_action(message.content or "")
            return LLMReply(
                content=reasoning or None, tool_calls=[call] if call else [], usage=usage
            )
        return LLMReply(content=message.content, tool_calls=_native_calls(message), usage=usage)

    async def aclose(self) -> None:
        """Close the underlying HTTP connections."""
        await self._client.close()

    async def _create_with_retries(self, request: dict[str, Any]) -> Any:
        """Call the endpoint, retrying transient failures; raise LLMError when it fails for good."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._client.chat.completions.create(**request)
            except openai.APIError as exc:
                reason = self._retry_reason(exc)
                if reason is None:
                    raise self._permanent_error(exc) from exc
                if attempt > self.max_retries:
                    raise LLMError(
                        f"{self._label} failed after {attempt} attempts: {reason}",
                        status_code=getattr(exc, "status_code", None),
                        code=exc.code,
                    ) from exc
                delay = self._delay(attempt, exc)
                logger.warning(
                    "%s: %s; retry %d/%d in %.2fs",
                    self._label,
                    reason,
                    attempt,
                    self.max_retries,
                    delay,
                )
                await asyncio.sleep(delay)

    def _retry_reason(self, exc: openai.APIError) -> str | None:
        """Why a failure is worth retrying, or None when it is not transient."""
        if isinstance(exc, openai.APITimeoutError):
            return f"timed out after {self.timeout_s}s"
        if isinstance(exc, openai.APIConnectionError):
            return f"connection error ({exc.__cause__ or exc})"
        if isinstance(exc, openai.RateLimitError):
            return f"rate limited (HTTP 429: {_message(exc)})"
        if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
            return f"server error (HTTP {exc.status_code}: {_message(exc)})"
        return None

    def _delay(self, attempt: int, exc: openai.APIError) -> float:
        """Seconds to wait: the server's Retry-After if given, else exponential backoff + jitter."""
        if isinstance(exc, openai.APIStatusError):
            retry_after = _retry_after_s(exc.response.headers)
            if retry_after is not None:
                return min(retry_after, self.backoff_max_s)
        backoff = min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s)
        return backoff * random.uniform(0.5, 1.0)

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


def _native_calls(message: Any) -> list[ToolCall]:
    """The function tool calls of a completion message; missing ids become call_1, call_2, ..."""
    return [
        ToolCall(
            id=call.id or f"call_{index}",
            name=call.function.name,
            arguments=call.function.arguments,
        )
        for index, call in enumerate(message.tool_calls or [], start=1)
        if getattr(call, "function", None) is not None
    ]


def _retry_after_s(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date), if present."""
    if (millis := headers.get("retry-after-ms")) is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time(), 0.0)
    except (TypeError, ValueError):
        return None
