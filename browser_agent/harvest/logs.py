"""Reading chat logs: this project's and other agents' runs, as a command and its calls.

A log is a list of OpenAI-shaped messages, or an object mapping agent names to such lists
(this project and AutoGen-based agents such as Agent-E), or a saved browser-use agent
history. Other agents' tools are mapped onto the primitives (see ``foreign``); a call
that cannot be mapped is dropped and the log says why. Passwords typed into password
fields are masked before anything else sees the log. Everything in a log is untrusted:
malformed files raise LogError naming the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from browser_agent.errors import unreadable
from browser_agent.harvest import foreign
from browser_agent.harvest.calls import Call, ChatLog, LogError, problem_with
from browser_agent.harvest.elements import tag_for_selector
from browser_agent.secrets import MASK, PLACEHOLDER, redact
from browser_agent.skills.primitive import PRIMITIVES

# Where the command starts: after "user task", "task:", "command" or "request".
_TASK_PREFIX = re.compile(r"(?:user task|task|command|request)\s*[:\-]?\s*", re.IGNORECASE)
_OPENING = '"\u201c'
_CLOSING = '"\u201d'
# What follows the command's closing quote in the instructions that quote it: Agent-E's
# "using the appropriate agent. Current Page: ...", this project's "starting at URL. Current
# date ...", or the end of the line.
_TAIL = re.compile(
    r"\s*[.,;:]?\s*(?:$|\n|using the appropriate agent\b|current (?:page|url|date)\b"
    r"|starting (?:at|from)\b)",
    re.IGNORECASE,
)
_UNQUOTED_TAIL = re.compile(r"\s+current (?:page|url)\s*:", re.IGNORECASE)
# The id the planner gives the call of the skill a command was routed to (planner.loop).
ROUTED_CALL = "route_1"
END_MARKER = "##TERMINATE"  # this project's text end marker, and Agent-E's "##TERMINATE TASK##"
_FAILED_ANSWER = re.compile(r"\b(could not|couldn't|cannot|can't|unable to|failed to)\b", re.I)


def command_of(text: str) -> str:
    """The command inside the first user message, also when an instruction quotes it.

    The command may hold quotes itself (``Enter "Agustina" into the field``), so it runs
    from the first quote to the quote the instruction's tail follows, not to the next one.
    """
    text = text.strip()
    prefix = _TASK_PREFIX.search(text)
    after = prefix.end() if prefix else 0
    opening = next((i for i in range(after, len(text)) if text[i] in _OPENING), -1)
    if opening < 0:
        single = re.search(r"'([^']{2,})'", text[after:])
        if single:
            return single.group(1).strip()
        line = (text.splitlines() or [""])[0]
        tail = _UNQUOTED_TAIL.search(line)  # Agent-E's nested chats: "... Current Page: URL"
        return line[: tail.start()].strip() if tail else line.strip()
    closings = [i for i in range(opening + 1, len(text)) if text[i] in _CLOSING]
    ending = next((i for i in closings if _TAIL.match(text, i + 1)), None)
    if ending is None:
        ending = closings[-1] if closings else len(text)
    return text[opening + 1 : ending].strip()


def read_log(path: Path, command: str | None = None) -> ChatLog:
    """Parse one log file, with the run metadata beside it when there is any; ``command``
    says what the run did when the log itself does not (a browser-use history)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(path, unreadable(exc)) from exc
    except json.JSONDecodeError as exc:
        raise LogError(
            path, f"is not valid JSON ({exc.msg}, line {exc.lineno}); truncated?"
        ) from exc
    except RecursionError as exc:
        raise LogError(path, "is nested too deeply to be a log") from exc
    meta = _meta(path)
    if command:
        meta = {**meta, "command": command}
    if foreign.is_browser_use_history(data):
        return mask_secrets(foreign.read_browser_use(data, path, meta))
    return parse_messages(_message_list(path, data), path, meta)


def _meta(path: Path) -> dict[str, Any]:
    meta_path = path.with_suffix(".meta.json")
    if not meta_path.exists():
        return {}
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
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
    """Pair each tool call with its response, map another agent's tools onto the
    primitives, find the command and the outcome, and mask typed passwords."""
    meta = meta or {}
    users = [m for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    if not users:
        raise LogError(path, "has no user message, so no command")
    responses = _responses(messages)
    calls: list[Call] = []
    for message in messages:
        tool_calls = message.get("tool_calls") or []
        if not isinstance(tool_calls, list):
            raise LogError(path, "a message's tool_calls is not a list")
        for raw in tool_calls:
            calls.append(_call(path, raw, responses))
    final = _final_answer(messages)
    finished = finish_said(calls)
    routed = done_by_skill(messages, calls)
    if foreign.speaks_agent_e(calls, final):
        mapped = foreign.from_agent_e(calls)
        calls, dropped = mapped.calls, mapped.dropped
    else:
        calls, dropped = own_calls(calls)
    if meta.get("status"):  # this project's run: what `runs` lists, borne out by its log
        succeeded = run_succeeded(str(meta["status"]), finished, routed)
    elif finished is not None:
        succeeded = finished
    else:  # another agent's log: an answer with its end marker that does not say it failed
        succeeded = END_MARKER in (final or "") and not failed_answer(final or "")
    log = ChatLog(
        path=str(path),
        command=str(meta.get("command") or command_of(users[0]["content"])),
        calls=calls,
        final_answer=final,
        succeeded=succeeded,
        run_id=meta.get("id"),
        start_url=meta.get("start_url"),
        meta=meta,
        dropped=dropped,
        routed_to=routed if succeeded else None,
    )
    return mask_secrets(log)


def run_succeeded(status: str, finished: bool | None, routed: str | None) -> bool:
    """Whether this project's run succeeded: its status (the one ``runs`` and the console
    list) says so, and its log bears it out, with a finish saying it was done or the
    skill it was routed to doing it alone (``routed``, see :func:`done_by_skill`)."""
    return status == "succeeded" and (finished is True or routed is not None)


def done_by_skill(messages: list[dict[str, Any]], calls: list[Call]) -> str | None:
    """The skill a run was routed to when that skill did the command alone: the log's only
    call is the routed one and it was answered without an error. None otherwise (the
    planner took over, or no skill was routed)."""
    ids = [
        raw.get("id")
        for message in messages
        for raw in message.get("tool_calls") or []
        if isinstance(raw, dict)
    ]
    if ids != [ROUTED_CALL] or len(calls) != 1:
        return None
    (call,) = calls
    answered = call.response is not None and not call.response.startswith("Error")
    return call.name if answered and call.name not in PRIMITIVES else None


def finish_said(calls: list[Call]) -> bool | None:
    """Whether the log's last finish call ended the run as done: accepted, with an answer
    and ``success`` true. None when the log holds no finish call."""
    finishes = [call for call in calls if call.name == "finish"]
    if not finishes:
        return None
    last = finishes[-1]
    answer = last.arguments.get("answer")
    return (
        last.arguments.get("success") is True
        and isinstance(answer, str)
        and bool(answer.strip())
        and not (last.response or "Error").startswith("Error")
    )


def failed_answer(answer: str) -> bool:
    """Whether a final answer says the task could not be done."""
    return bool(_FAILED_ANSWER.search(answer))


def _final_answer(messages: list[dict[str, Any]]) -> str | None:
    """The last thing the agent said without calling a tool (Agent-E's end marker also
    counts when the log was kept from the executor's side, where the agent is the user)."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("tool_calls") or message.get("role") == "tool":
            continue
        if not isinstance(content, str) or not content:
            continue
        if message.get("role") == "assistant" or "##TERMINATE" in content:
            return content
    return None


def _responses(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Tool responses by call id, from tool messages and their tool_responses lists."""
    found: dict[str, str] = {}
    for message in messages:
        if message.get("role") != "tool":
            continue
        items = message.get("tool_responses")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("tool_call_id"):
                found[str(item["tool_call_id"])] = str(item.get("content") or "")
        if message.get("tool_call_id"):
            found.setdefault(str(message["tool_call_id"]), str(message.get("content") or ""))
    return found


def _call(path: Path | str, raw: Any, responses: dict[str, str]) -> Call:
    """One tool call as the log wrote it (arguments parsed, names untouched)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        raise LogError(path, "a tool call has no function")
    function = raw["function"]
    arguments = function.get("arguments") or "{}"
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (json.JSONDecodeError, RecursionError):
            arguments = {"__invalid__": arguments}
    if not isinstance(arguments, dict):
        arguments = {"__invalid__": arguments}
    name = str(function.get("name") or "")
    return Call(name=name, arguments=arguments, response=responses.get(str(raw.get("id"))))


def own_calls(calls: list[Call]) -> tuple[list[Call], list[str]]:
    """This project's calls as they are, less primitive calls that cannot be replayed
    (each dropped with the reason). Other tools stay: the plan ends the skill at them."""
    kept, dropped = [], []
    for number, call in enumerate(calls, start=1):
        if call.name in PRIMITIVES and "__invalid__" not in call.arguments:
            problem = problem_with(call.name, call.arguments)
            if problem:
                dropped.append(f"call {number} ({call.name}) dropped: {problem}")
                continue
        kept.append(call)
    return kept, dropped


def _typed(call: Call) -> list[tuple[str, Any]]:
    """(selector, text) for each field a call typed into."""
    arguments = call.arguments
    if call.name == "enter_text":
        return [(str(arguments.get("selector", "")), arguments.get("text"))]
    if call.name == "enter_text_and_click":
        return [(str(arguments.get("text_selector", "")), arguments.get("text"))]
    if call.name == "bulk_enter_text" and isinstance(arguments.get("entries"), list):
        entries = [e for e in arguments["entries"] if isinstance(e, dict)]
        return [(str(e.get("selector", "")), e.get("text")) for e in entries]
    return []


def typed_passwords(calls: list[Call]) -> set[str]:
    """Every value typed into a field its response shows as a password field (a secret's
    ``{NAME}`` placeholder is no secret: it stays, to become the skill's parameter)."""
    found = set()
    for call in calls:
        for selector, text in _typed(call):
            if not isinstance(text, str) or not text or text == MASK or PLACEHOLDER.fullmatch(text):
                continue
            tag = tag_for_selector(call.response or "", selector)
            if tag is not None and tag.attributes.get("type", "").lower() == "password":
                found.add(text)
    return found


def mask_secrets(log: ChatLog) -> ChatLog:
    """The log with every typed password masked everywhere in it (command, arguments,
    answers, metadata), so that no name, template, docstring or store row can hold it."""
    secrets = typed_passwords(log.calls)
    if not secrets:
        return log
    calls = [
        Call(c.name, redact(c.arguments, secrets), redact(c.response, secrets)) for c in log.calls
    ]
    return replace(
        log,
        command=redact(log.command, secrets),
        calls=calls,
        final_answer=redact(log.final_answer, secrets),
        meta=redact(log.meta, secrets),
        dropped=redact(log.dropped, secrets),
    )
