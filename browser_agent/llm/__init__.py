"""LLM layer: the client protocol, the OpenAI-compatible client, and a local test server."""

from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.text_actions import parse_text_action, render_tools_as_text
from browser_agent.llm.types import FunctionClient, LLMClient, LLMError, LLMReply, ToolCall, Usage

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
