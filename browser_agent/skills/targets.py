"""What a generated step acts on, as recorded when its skill was harvested, and the two ways
a step can fail to fit the page: stale (the page changed) or not applicable (the command's
value is not on the page); and a step held back, found but not done."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Page

from browser_agent.errors import ActionError


class SkillStale(ActionError):
    """A harvested step no longer fits the page; ``step`` and ``selector`` say where."""

    def __init__(self, message: str, *, step: int, selector: str) -> None:
        super().__init__(message, kind="stale", selector=selector)
        self.step = step


class SkillNotApplicable(ActionError):
    """The skill fits the page, but not this command: a value it was given (a label, a
    name) is not on the page, or does not fit its parameter. The skill stays healthy;
    the planner takes over."""

    def __init__(self, message: str, *, step: int, selector: str = "") -> None:
        super().__init__(message, kind="not_applicable", selector=selector)
        self.step = step


@dataclass
class Target:
    """An element a skill acts on, as recorded when the skill was harvested."""

    step: int
    selector: str
    role: str
    name: str
    tag: str = ""
    text: str = ""
    attributes: dict[str, str] = field(default_factory=dict)
    xpath: str = ""
    near: str = ""  # the nearest text before it when recorded, to tell it from its equals
    among: int = 0  # its place among the elements of its role and name when recorded
    intent: str = ""


# Given the target whose element could not be found, the current page and why it was not
# found: the selector of the element that does the step instead ("[mmid='12']"), or None.
StepHelper = Callable[[Target, Page, str], Awaitable[str | None]]


class StepHeld(ActionError):
    """The step's element was found and the step not done: a replay that must change
    nothing on the site (a removal checked by validation) stops there."""

    def __init__(self, step: int, selector: str) -> None:
        super().__init__(f"Step {step}: found {selector}, held back", kind="held")
        self.step = step
