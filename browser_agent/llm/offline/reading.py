"""Reading what a command asks off the page: a price, a count, or a text about a subject.

A price is looked for after the heading or link that names its subject; when none
follows, the subject's own page is opened first (a prepare step)."""

from __future__ import annotations

import re
from dataclasses import replace

from browser_agent.llm.offline.page import Element, Page, points_here
from browser_agent.llm.offline.resolve import (
    Action,
    Blocked,
    Done,
    Outcome,
    Situation,
    reach,
    where,
)
from browser_agent.llm.offline.tasks import Reach, Read
from browser_agent.llm.offline.words import covers

_PRICE = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d{2})?|\d[\d,]*(?:\.\d{2})?\s?(?:USD|EUR|GBP|€))")
_COUNT = re.compile(
    r"\b\d+\s+(?:results?|products?|items?|matches|hits|stores?\b|deals?)|\bshowing all \d+"
    r"|\bno (?:products|results|items|stores)\b",
    re.IGNORECASE,
)


def read(task: Read, situation: Situation) -> Outcome:
    """What the page says that ``task`` asks for, or the step that gets to where it says it."""
    page = situation.page
    if task.what == "count":
        lines = [t for t in page.texts if _COUNT.search(t) or _counts(t, task.subject)]
        if lines:
            return Done(f"The page says: {lines[0]}")
        return Blocked(f"could not find how many {task.subject} there are on {where(page)}")
    if task.what == "text":
        lines = _lines_about(page, task.subject)
        if lines:
            return Done(f"The {task.subject}: {' '.join(lines)}")
        return Blocked(f'could not find "{task.subject}" on {where(page)}')
    return _read_price(task, situation)


def _read_price(task: Read, situation: Situation) -> Outcome:
    page = situation.page
    anchors = [e for e in page.elements if e.is_heading and covers(e.name, task.subject)]
    anchors += [e for e in page.elements if e.role == "link" and covers(e.name, task.subject)]
    for anchor in anchors:
        for element in page.following(anchor):
            price = _PRICE.search(element.name) if element.is_text else None
            if price:
                return Done(f"The price of {task.subject} is {price.group(0)}")
    if anchors:
        return _open_anchor(anchors, page)
    step = reach(Reach(task.subject), situation)  # find the subject first: a prepare step
    if isinstance(step, Action):
        return replace(step, phase="prepare", kind=step.kind or "link")
    return step


def _open_anchor(anchors: list[Element], page: Page) -> Outcome:
    """The subject is named but no price follows it: open its own page (a prepare step)."""
    link = next((a for a in anchors if a.role == "link" and not points_here(a, page)), None)
    if link is None:
        return Blocked(f"could not find a price next to {anchors[0].describe()} on {where(page)}")
    return Action(
        "click", {"selector": link.selector}, f"open {link.describe()}", "prepare", "link"
    )


def _counts(text: str, noun: str) -> bool:
    return bool(re.search(r"\d", text)) and covers(text, noun)


def _lines_about(page: Page, subject: str) -> list[str]:
    """Text lines that mention the subject, each with the line after it (a value often follows)."""
    lines: list[str] = []
    for index, text in enumerate(page.texts):
        if covers(text, subject):
            lines.append(text)
            if index + 1 < len(page.texts):
                lines.append(page.texts[index + 1])
            break
    return lines
