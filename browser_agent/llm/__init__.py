"""LLM layer: the client protocol, the OpenAI-compatible client and the offline planner (the
OpenAI-compatible test server is a test helper: :mod:`browser_agent.testing.openai_server`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from browser_agent.llm.text_actions import parse_text_action, render_tools_as_text
from browser_agent.llm.types import FunctionClient, LLMClient, LLMError, LLMReply, ToolCall, Usage

if TYPE_CHECKING:
    from browser_agent.llm.openai_client import OpenAIClient

__all__ = [
    "FunctionClient",
    "LLMClient",
    "LLMError",
    "LLMReply",
    "OpenAIClient",
    "ToolCall",
    "Usage",
    "parse_text_action",
    "render_tools_as_text",
]


def __getattr__(name: str) -> Any:
    """``OpenAIClient`` on first use: the openai package loads only for a hosted model."""
    if name == "OpenAIClient":
        from browser_agent.llm.openai_client import OpenAIClient

        return OpenAIClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
