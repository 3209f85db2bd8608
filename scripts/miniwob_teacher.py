"""Scripted teachers for MiniWoB++ tasks: one correct solution each, played as an LLM or
shown as a person would.

A teacher stands in for a person who shows the agent a task once, when the offline
planner cannot solve it. As an LLM (``teacher_policy``) it opens the page, looks at it
(get_dom) before every step and answers with tool calls, exactly as a model would. As a
person (``show``) it clicks and types with Playwright in a page the recorder watches
(``browser_agent.record``), so the demonstration is logged and harvested like any other
run. Teachers know their task (that is what showing is); the product's own rules must
stay general.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from playwright.async_api import Page as BrowserPage

from browser_agent.dom.library import run_on_page
from browser_agent.llm.offline.history import read_history
from browser_agent.llm.offline.page import Element, Page, parse_page
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.record.actions import observation_text

# A lesson: given the page as last observed, the command and how many actions were taken
# so far, the next tool call (name, arguments), or None when the task is done.
Lesson = Callable[[Page, str, int], tuple[str, dict] | None]

TEACHERS: dict[str, Lesson] = {}


def teacher_policy(task: str) -> Callable[[list[dict], list[dict]], LLMReply]:
    """An LLM policy that opens the page, then looks before every step of ``task``'s lesson."""
    lesson = TEACHERS[task]

    def policy(messages: list[dict], _tools: list[dict]) -> LLMReply:
        history = read_history(messages)
        turns, number = history.turns, history.answers + 1
        if not turns:
            return _call(number, "open_url", {"url": history.start_url})
        if turns[-1].name != "get_dom":
            return _call(number, "get_dom", {"content_type": "all_fields"})
        page = parse_page(turns[-1].response or "")
        acted = sum(1 for t in turns if t.name not in ("get_dom", "open_url"))
        step = lesson(page, history.command, acted)
        if step is None:
            done = {"answer": "Done, as shown by a teacher.", "success": True}
            return _call(number, "finish", done)
        return _call(number, *step)

    return policy


async def show(task: str, page: BrowserPage, command: str, max_steps: int = 20) -> int:
    """Do ``task``'s lesson on ``page`` as a person: look at the page as get_dom shows it,
    then click or type with Playwright. Returns how many actions were taken."""
    lesson = TEACHERS[task]
    for acted in range(max_steps):
        seen = await run_on_page(page, "observe", contentType="all_fields", budget=60_000)
        step = lesson(parse_page(observation_text(seen) or ""), command, acted)
        if step is None:
            return acted
        name, arguments = step
        target = page.locator(arguments["selector"])
        if name == "click":
            await target.click()
        else:
            await target.fill(arguments["text"])
    return max_steps


def _call(number: int, name: str, arguments: dict) -> LLMReply:
    call = ToolCall(f"call_{number}", name, json.dumps(arguments))
    return LLMReply(f"Teacher step {number}.", [call])


def lesson(task: str) -> Callable[[Lesson], Lesson]:
    """Register a lesson for ``task``."""

    def register(fn: Lesson) -> Lesson:
        TEACHERS[task] = fn
        return fn

    return register


def named(page: Page, name: str, roles: tuple[str, ...] = ()) -> Element:
    """The element with this name (case aside), of one of ``roles`` when given."""
    for element in page.interactive():
        if element.name.strip().lower() == name.strip().lower() and (
            not roles or element.role in roles
        ):
            return element
    raise LookupError(f"the teacher found no element named {name!r}")


def after_text(page: Page, label: str) -> Element:
    """The first field after the text ``label`` (a form whose labels are plain text)."""
    seen = False
    for element in page.elements:
        if element.is_text and element.name.strip().lower() == label.lower():
            seen = True
        elif seen and element.role == "textbox":
            return element
    raise LookupError(f"the teacher found no field after {label!r}")


def click(element: Element) -> tuple[str, dict]:
    return "click", {"selector": element.selector}


def type_into(element: Element, text: str) -> tuple[str, dict]:
    return "enter_text", {"selector": element.selector, "text": text}


# Words the seed-0 instance of click-checkboxes-soft asks about, and the page's word for each.
_SIMILAR = {"rabbit": "bunnies", "angry": "mad", "gigantic": "large"}


@lesson("click-checkboxes-soft")
def _similar_words(page: Page, command: str, acted: int) -> tuple[str, dict] | None:
    asked = re.search(r"similar to (.+?) and click", command)
    words = [w.strip() for w in asked.group(1).split(",")] if asked else []
    boxes = [_SIMILAR.get(word, word) for word in words]
    if acted < len(boxes):
        return click(named(page, boxes[acted], ("checkbox",)))
    if acted == len(boxes):
        return click(named(page, "Submit", ("button",)))
    return None


def _movie_search(page: Page, command: str, acted: int) -> tuple[str, dict] | None:
    found = re.search(r"for (\S+) movies directed by (\S+) from year (\d+)", command)
    if found is None:
        return None
    genre, director, year = found.groups()
    fields = [("Genre", genre), ("Director", director), ("Year", year)]
    if acted < len(fields):
        label, value = fields[acted]
        try:
            field = after_text(page, label)
        except LookupError:
            field = after_text(page, f"{label} Name")
        return type_into(field, value)
    if acted == len(fields):
        submit = [e for e in page.interactive() if e.clickable and e.name in ("Submit", "Search")]
        return click(submit[0])
    return None


lesson("multi-orderings")(_movie_search)
lesson("multi-layouts")(_movie_search)


@lesson("choose-date-easy")
def _date(page: Page, command: str, acted: int) -> tuple[str, dict] | None:
    day = re.search(r"\d+/(\d+)/\d+", command)
    if day is None or acted > 2:
        return None
    if acted == 0:  # the date field opens a calendar
        return click(next(e for e in page.interactive() if e.role == "textbox"))
    if acted == 1:
        return click(named(page, str(int(day.group(1))), ("link",)))
    return click(named(page, "Submit", ("button",)))
