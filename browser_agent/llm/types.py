"""The LLM client protocol: OpenAI-shaped chat messages and tool schemas in, a reply out.

Messages are plain dicts in the OpenAI chat format so that the planner can write
them to the chat log unchanged. Tools are OpenAI function tool schemas:
``{"type": "function", "function": {"name", "description", "parameters"}}``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from browser_agent.errors import BrowserAgentError


@dataclass
class ToolCall:
    """One tool call from the model; ``arguments`` is its raw JSON text, possibly invalid."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        """The call in OpenAI ``tool_calls`` item shape."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class Usage:
    """Token counts of one completion, 0 when the endpoint does not report them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class LLMReply:
    """One assistant answer: reasoning or final text, tool calls to run, token usage."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def to_message(self) -> dict[str, Any]:
        """The reply as an OpenAI assistant message, ready for the history and the chat log."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        return message


class LLMError(BrowserAgentError):
    """An LLM request failed for good (retries exhausted or a non-retryable error)."""

    def __init__(self, message: str, *, status_code: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status_code = status_code
        self.code = code


class LLMClient(Protocol):
    """What the planner needs from a model: one chat completion with tools."""

    name: str

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """Answer the conversation, possibly with calls to the given tools."""
        ...


ReplyFunction = Callable[[list[dict], list[dict]], LLMReply | Awaitable[LLMReply]]


class FunctionClient:
    """An LLMClient backed by a plain (sync or async) function, so tests can script the model."""

    def __init__(self, fn: ReplyFunction, name: str = "function"):
        self.fn = fn
        self.name = name

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """Call the function and await its result if it is awaitable."""
        reply = self.fn(messages, tools)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply
