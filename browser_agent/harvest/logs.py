"""Reading chat logs: this project's and other AutoGen-based agents' message lists.

A log is a list of OpenAI-shaped messages, or an object mapping agent names to such
lists. Everything in it is untrusted: malformed files raise LogError naming the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class LogError(ValueError):
    """A log that cannot be read; the message names the file and the problem."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


@dataclass
class Call:
    """One tool call paired with the response it got (None when the log stops before it)."""

    name: str
    arguments: dict[str, Any]
    response: str | None


@dataclass
class ChatLog:
    """What a harvester needs from a log: the command, the calls, how the run ended."""

    path: str
    command: str
    calls: list[Call]
    final_answer: str | None
    succeeded: bool
    run_id: str | None = None
    start_url: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# "Execute the user task "find shoes" starting at ..." and similar instructions.
_QUOTED = re.compile(r"""["\u201c]([^"\u201d]{2,})["\u201d]|'([^']{2,})'""")
_TASK_PREFIX = re.compile(r"(?:user task|task|command|request)\s*[:\-]?\s*", re.IGNORECASE)
_FAILED_ANSWER = re.compile(r"\b(could not|couldn't|cannot|can't|unable to|failed to)\b", re.I)


def command_of(text: str) -> str:
    """The command inside the first user message, also when quoted in an instruction."""
    text = text.strip()
    after = _TASK_PREFIX.search(text)
    scope = text[after.end() :] if after else text
    quoted = _QUOTED.search(scope) or _QUOTED.search(text)
    if quoted:
        return (quoted.group(1) or quoted.group(2)).strip()
    return text.splitlines()[0].strip() if text else text


def read_log(path: Path) -> ChatLog:
    """Parse one chat log file, with the run metadata beside it when there is any."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LogError(path, f"cannot be read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise LogError(path, "is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise LogError(
            path, f"is not valid JSON ({exc.msg}, line {exc.lineno}); truncated?"
        ) from exc
    meta = _meta(path)
    return parse_messages(_message_list(path, data), path, meta)


def _meta(path: Path) -> dict[str, Any]:
    meta_path = path.with_suffix(".meta.json")
    if not meta_path.exists():
        return {}
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _message_list(path: Path, data: Any) -> list[dict[str, Any]]:
    """The messages of a log; for a per-agent object, the list with the most tool calls."""
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        if not lists:
            raise LogError(path, "is an object but holds no message list")
        data = max(
            lists, key=lambda ms: sum(1 for m in ms if isinstance(m, dict) and m.get("tool_calls"))
        )
    if not isinstance(data, list):
        raise LogError(path, "is neither a message list nor an object of message lists")
    bad = [i for i, m in enumerate(data) if not isinstance(m, dict) or "role" not in m]
    if bad:
        raise LogError(path, f"message {bad[0]} is not a chat message (no role)")
    return data


def parse_messages(
    messages: list[dict[str, Any]], path: Path | str, meta: dict[str, Any] | None = None
) -> ChatLog:
    """Pair each tool call with its response and find the command and the outcome."""
    meta = meta or {}
    users = [m for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    if not users:
        raise LogError(path, "has no user message, so no command")
    responses = _responses(messages)
    calls: list[Call] = []
    for message in messages:
        for raw in message.get("tool_calls") or []:
            calls.append(_call(path, raw, responses))
    final = next(
        (
            m["content"]
            for m in reversed(messages)
            if m.get("role") == "assistant" and not m.get("tool_calls") and m.get("content")
        ),
        None,
    )
    if meta.get("status"):
        succeeded = meta["status"] == "succeeded"
    else:
        succeeded = bool(final) and not _FAILED_ANSWER.search(final or "")
    return ChatLog(
        path=str(path),
        command=str(meta.get("command") or command_of(users[0]["content"])),
        calls=calls,
        final_answer=final,
        succeeded=succeeded,
        run_id=meta.get("id"),
        start_url=meta.get("start_url"),
        meta=meta,
    )


def _responses(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Tool responses by call id, from tool messages and their tool_responses lists."""
    found: dict[str, str] = {}
    for message in messages:
        if message.get("role") != "tool":
            continue
        for item in message.get("tool_responses") or []:
            if isinstance(item, dict) and item.get("tool_call_id"):
                found[str(item["tool_call_id"])] = str(item.get("content") or "")
        if message.get("tool_call_id"):
            found.setdefault(str(message["tool_call_id"]), str(message.get("content") or ""))
    return found


# Other agents' tool names for our primitives, and their argument names for ours.
TOOL_ALIASES = {
    "openurl": "open_url",
    "geturl": "get_url",
    "get_dom_with_content_type": "get_dom",
    "entertext": "enter_text",
    "bulk_enter_text": "bulk_enter_text",
    "press_key_combination": "press_key_combination",
    "click": "click",
    "select_option": "select_option",
    "hover": "hover",
    "go_back": "go_back",
}
ARGUMENT_ALIASES = {"query_selector": "selector", "key_combination": "keys"}
DROPPED_ARGUMENTS = {"timeout", "wait_before_execution"}


def normalise(name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Another agent's call in our primitives' terms (``entertext(entry=...)`` and such)."""
    name = TOOL_ALIASES.get(name.lower(), name)
    if isinstance(arguments.get("entry"), dict) and len(arguments) == 1:
        arguments = arguments["entry"]
    renamed = {
        ARGUMENT_ALIASES.get(key, key): value
        for key, value in arguments.items()
        if key not in DROPPED_ARGUMENTS
    }
    return name, renamed


def _call(path: Path | str, raw: Any, responses: dict[str, str]) -> Call:
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        raise LogError(path, "a tool call has no function")
    function = raw["function"]
    arguments = function.get("arguments") or "{}"
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            arguments = {"__invalid__": arguments}
    if not isinstance(arguments, dict):
        arguments = {"__invalid__": arguments}
    name, arguments = normalise(str(function.get("name") or ""), arguments)
    return Call(name=name, arguments=arguments, response=responses.get(str(raw.get("id"))))
