"""Scripted teachers for MiniWoB++ tasks: one correct solution each, played as an LLM.

A teacher stands in for a person who shows the agent a task once, when the offline
planner cannot solve it. It reads the page from the get_dom answers in the conversation
and answers with tool calls, exactly as a model would, so the run is logged and
harvested like any other. Teachers know their task (that is what showing is); the
product's own rules must stay general.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from browser_agent.llm.offline.history import read_history
from browser_agent.llm.offline.page import Element, Page, parse_page
from browser_agent.llm.types import LLMReply, ToolCall

# A lesson step: given the page as last observed and the command, the next tool call
# (name, arguments), or None when the lesson is over.
Lesson = Callable[[Page, str, int], tuple[str, dict] | None]

TEACHERS: dict[str, Lesson] = {}


def teacher_policy(task: str) -> Callable[[list[dict], list[dict]], LLMReply]:
    """An LLM policy that looks at the page before every step and plays ``task``'s lesson."""
    lesson = TEACHERS[task]

    def policy(messages: list[dict], _tools: list[dict]) -> LLMReply:
        history = read_history(messages)
        turns = history.turns
        number = history.answers + 1
        if not turns or turns[-1].name != "get_dom":
            return _call(number, "get_dom", {"content_type": "all_fields"})
        page = parse_page(turns[-1].response or "")
        acted = sum(1 for t in turns if t.name != "get_dom")
        step = lesson(page, history.command, acted)
        if step is None:
            return _call(
                number, "finish", {"answer": "Done (shown by a teacher).", "success": True}
            )
        return _call(number, *step)

    return policy


def _call(number: int, name: str, arguments: dict) -> LLMReply:
    return LLMReply(
        f"Teacher step {number}.", [ToolCall(f"call_{number}", name, json.dumps(arguments))]
    )


def lesson(task: str) -> Callable[[Lesson], Lesson]:
    def register(fn: Lesson) -> Lesson:
        TEACHERS[task] = fn
        return fn

    return register


def named(page: Page, name: str, roles: tuple[str, ...] = ()) -> Element | None:
    for element in page.interactive():
        if element.name.strip().lower() == name.strip().lower() and (
            not roles or element.role in roles
        ):
            return element
    return None


def quoted(command: str) -> list[str]:
    return re.findall(r'"([^"]*)"', command)
