"""A log as the harvester reads it: its calls, the command and how the run ended, and
whether a call can become a step (shared by this project's logs and other agents')."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from browser_agent.errors import BrowserAgentError
from browser_agent.skills.primitive import PRIMITIVES


class LogError(BrowserAgentError, ValueError):
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
    dropped: list[str] = field(default_factory=list)  # calls left out, each with the reason
    routed_to: str | None = None  # the skill that did the command alone, when one did


def problem_with(primitive: str, arguments: dict[str, Any]) -> str | None:
    """Why a call cannot become a step calling ``primitive``: a parameter the primitive
    does not have, or a value a skill cannot hold. None when it can."""
    parameters = inspect.signature(PRIMITIVES[primitive]).parameters
    unknown = sorted(set(arguments) - set(parameters))
    if unknown:
        listed = ", ".join(repr(u) for u in unknown)
        return f"{primitive} has no parameter {listed}"
    if primitive == "bulk_enter_text":
        return None  # its entries are checked field by field when it is planned
    odd = sorted(k for k, v in arguments.items() if not isinstance(v, str | bool | int | float))
    if odd:
        return f"{primitive} was given {', '.join(repr(k) for k in odd)} that is not a plain value"
    return None
