"""Planner messages as memory sees them: call/response groups, page observations, transcripts."""

from __future__ import annotations

import json
from typing import Any

from browser_agent.memory.tokens import TokenCounter, message_tokens

Message = dict[str, Any]

OBSERVATION_START = 'Page "'  # how get_dom's answer begins: Page "Title" at URL


def command_index(messages: list[Message]) -> int:
    """Index of the first user message: the command, which is always kept (0 if none)."""
    return next((i for i, m in enumerate(messages) if m.get("role") == "user"), 0)


def group(messages: list[Message]) -> list[list[Message]]:
    """Messages in units that move together: an assistant message with tool calls and
    the tool messages answering it form one unit; every other message is its own."""
    units: list[list[Message]] = []
    for message in messages:
        if message.get("role") == "tool" and units:
            units[-1].append(message)
        else:
            units.append([message])
    return units


def is_observation(message: Message) -> bool:
    """Whether a message is a page observation (a get_dom answer): the biggest messages."""
    content = message.get("content")
    return (
        message.get("role") == "tool"
        and isinstance(content, str)
        and content.startswith(OBSERVATION_START)
    )


def elided(message: Message) -> Message:
    """The observation reduced to a one-line note naming the page, pairing kept."""
    content: str = message["content"]
    lines = content.count("\n") + 1
    note = (
        f"[Earlier page observation elided to save context: {content.splitlines()[0]}, "
        f"{lines} lines. Call get_dom to see the page as it is now.]"
    )
    return {**message, "content": note}


def text_tokens(text: str, counter: TokenCounter) -> int:
    """Tokens of a text inside a message: measured as JSON, so escaping counts too."""
    return counter.text(json.dumps(text))


def clip_text(text: str, max_tokens: int, counter: TokenCounter) -> str:
    """``text`` cut to at most ``max_tokens``, ending with a note of how much was cut."""
    if text_tokens(text, counter) <= max_tokens:
        return text
    kept = text
    while kept and text_tokens(kept, counter) > max_tokens - 12:  # room for the note
        kept = kept[: int(len(kept) * 0.8)]
    return f"{kept} … [{len(text) - len(kept)} characters cut]"


def clip_message(message: Message, max_tokens: int, counter: TokenCounter) -> Message:
    """The message with its content cut until the whole message fits ``max_tokens``."""
    clipped = message
    content = message.get("content") or ""
    while content and message_tokens(counter, clipped) > max_tokens:
        content = content[: int(len(content) * 0.8)]
        clipped = {**message, "content": f"{content} … [cut to fit the context]"}
    return clipped


def tool_names(messages: list[Message]) -> dict[str, str]:
    """Tool name of every call id, to label tool answers in transcripts."""
    return {
        call["id"]: call["function"]["name"]
        for message in messages
        for call in message.get("tool_calls") or []
    }


def transcript_line(message: Message, names: dict[str, str]) -> str:
    """One message as a line of plain text for a summary or memory prompt."""
    role = message.get("role")
    content = message.get("content") or ""
    if role == "tool":
        name = names.get(message.get("tool_call_id") or "", "tool")
        return f"Tool {name} answered: {content}"
    if role == "assistant":
        calls = [
            f"{call['function']['name']}({_arguments(call['function']['arguments'])})"
            for call in message.get("tool_calls") or []
        ]
        said = f"Agent: {content}" if content else "Agent:"
        return f"{said} called {', '.join(calls)}" if calls else said
    return f"{str(role).capitalize()}: {content}"


def _arguments(raw: str) -> str:
    """Tool-call arguments as compact ``name=value`` text (raw text when not JSON)."""
    try:
        parsed = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return raw
    if not isinstance(parsed, dict):
        return raw
    return ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in parsed.items()
    )
