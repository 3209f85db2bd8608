"""Reading the conversation: the command, the start URL, and what each earlier turn did.

The offline planner keeps no state between calls. Each of its answers starts with a
marker such as ``Plan step 3/7 (act): ...``; together with the tool results that
followed, the markers tell it how far the plan got. Both message shapes are read:
native tool calls with ``tool`` messages, and the plain-text action format.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from browser_agent.llm.text_actions import message_text, parse_text_action, tool_results_in

_TASK = re.compile(
    r'Execute the user task "(?P<command>.*)"(?: starting at (?P<url>\S+?))?\. Current date',
    re.DOTALL,
)
_MARKER = re.compile(r"Plan steps? (\d+)(?:-(\d+))?/\d+ \((act|prepare|look|final)(?: (\w+))?\)")
_CHANGED = re.compile(
    r"Page (?:navigated to|loaded:)|new elements? appeared|elements? (?:was|were) removed"
    r"|new tab opened|Went back"
)

_VISITED = re.compile(
    r"(?:Page navigated to|^Page \"[^\n]*\" at) (https?://[^\s<>\"]+?)\.?(?=\s|$)", re.M
)

#: Tools that only look at the page.
OBSERVING = frozenset({"get_dom", "get_url", "extract_text"})


@dataclass(frozen=True)
class Marker:
    """Which plan tasks an answer served (``first``..``last``, 0-based) and how."""

    first: int
    last: int
    phase: str  # act, prepare, look or final
    kind: str = ""  # for prepare: link, search or modal


@dataclass
class Turn:
    """One tool call of the planner and the tool's answer to it."""

    name: str
    arguments: dict[str, Any]
    response: str | None
    marker: Marker | None
    content: str = ""

    @property
    def failed(self) -> bool:
        return self.response is not None and self.response.startswith("Error")

    @property
    def changed_page(self) -> bool:
        return self.response is not None and _CHANGED.search(self.response) is not None


@dataclass
class History:
    """The command, the start URL and the turns so far."""

    command: str = ""
    start_url: str | None = None
    turns: list[Turn] = field(default_factory=list)
    answers: int = 0  # assistant messages so far, for unique call ids

    def visited(self) -> list[str]:
        """The addresses of the pages the run was shown or went to, in order."""
        found: list[str] = []
        for turn in self.turns:
            found += _VISITED.findall(turn.response or "")
        return found

    def notes(self) -> list[str]:
        """What earlier answers noted down (texts read before the last task)."""
        found: list[str] = []
        for turn in self.turns:
            found.extend(
                line.removeprefix("Noted: ")
                for line in turn.content.splitlines()
                if line.startswith("Noted: ")
            )
        return found


def read_history(messages: list[dict]) -> History:
    """The History of a conversation in native or plain-text shape."""
    history = History()
    by_id: dict[str, Turn] = {}
    pending: list[Turn] = []
    for message in messages:
        role, content = message.get("role"), message_text(message.get("content"))
        if role == "user" and not history.command and (task := _TASK.search(content)):
            history.command, history.start_url = task.group("command"), task.group("url")
        elif role == "assistant":
            history.answers += 1
            pending = _assistant_turns(message, content, by_id)
            history.turns.extend(pending)
        elif role == "tool" and (turn := by_id.get(message.get("tool_call_id", ""))):
            turn.response = content
        elif role == "user" and pending and (results := tool_results_in(content)):
            for turn, result in zip(pending, results, strict=False):
                turn.response = result.strip()
            pending = []
    return history


def _assistant_turns(message: dict, content: str, by_id: dict[str, Turn]) -> list[Turn]:
    """The calls of one assistant message; the marker is read from its text."""
    calls = message.get("tool_calls") or []
    if not calls:
        reasoning, call = parse_text_action(content)
        if call is None:
            return []
        calls = [call.to_dict()]
        content = reasoning
    marker = _marker(content)
    turns = []
    for item in calls:
        function = item.get("function", {})
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = {}
        turn = Turn(function.get("name", ""), arguments, None, marker, content)
        by_id[item.get("id", "")] = turn
        turns.append(turn)
    return turns


def _marker(content: str) -> Marker | None:
    match = _MARKER.search(content)
    if not match:
        return None
    first = int(match.group(1)) - 1
    last = int(match.group(2) or match.group(1)) - 1
    return Marker(first, last, match.group(3), match.group(4) or "")
