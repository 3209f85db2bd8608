"""What the next step of a task comes to on the page as last observed: a tool call to
make, nothing to do there, or the reason it cannot be done."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from browser_agent.llm.offline.page import Element, Option, Page


@dataclass(frozen=True)
class Action:
    """A tool call that serves the task; ``phase`` is act (the task's own step) or prepare."""

    tool: str
    arguments: dict[str, Any]
    note: str
    phase: str = "act"
    kind: str = ""  # what a prepare step does: link, search or modal


@dataclass(frozen=True)
class Done:
    """The task needs no action on this page (already so); ``note`` is a text it read."""

    note: str = ""


@dataclass(frozen=True)
class Blocked:
    """The task cannot be done here; ``reason`` says why, starting with "could not"."""

    reason: str


Outcome = Action | Done | Blocked


@dataclass
class Situation:
    """The page as last observed and what was already tried for the current task."""

    page: Page
    prepared: list[str] = field(default_factory=list)
    said: str = ""  # the answer to the last action (a dialog it met)
    read: str = ""  # the answer to a read taken for the current task
    tried: list[str] = field(default_factory=list)  # what its prepare steps said they did
    visited: list[str] = field(default_factory=list)  # the addresses the run has been at


def where(page: Page) -> str:
    """How an answer names the page: its title and address."""
    return f'"{page.title}" at {page.url}'


def choose(element: Element, option: Option | None, wanted: str, page: Page) -> Outcome:
    """Choose ``option`` of the drop-down ``element``, nothing when it is chosen already;
    with no option, the reason names what was wanted and the options there are."""
    if option is None:
        listed = ", ".join(o.label for o in element.options if o.value)
        return Blocked(
            f'could not find the option "{wanted}" in {element.describe()} on {where(page)}; '
            f"its options are: {listed}"
        )
    if option.selected:
        return Done()
    arguments = {"selector": element.selector, "option": option.value or option.label}
    return Action("select_option", arguments, f'choose "{option.label}" in {element.describe()}')
