"""What kind of failure a skill's failed run or replay was, which decides what it says
about the skill:

- ``late``: the page or the browser was slower than the deadline (an effect or a
  navigation came after it, an action timed out, the browser went away). Not the skill.
- ``not_applicable``: the skill fits the page but not this command (a value the command
  gave is not on the page). Not the skill either.
- ``broken``: the skill no longer fits the page (its target is gone, another control
  answers to it, it ended in the wrong state). Only this counts against the skill.
"""

from __future__ import annotations

from typing import Literal

from browser_agent.errors import ActionError, BrowserError

Kind = Literal["late", "not_applicable", "broken"]
LATE: Kind = "late"
NOT_APPLICABLE: Kind = "not_applicable"
BROKEN: Kind = "broken"

# How each kind reads in a sentence ("failed: late").
SAID = {LATE: "late", NOT_APPLICABLE: "not applicable", BROKEN: "broken"}


class SkillLate(ActionError):
    """A step's effect did not come within its deadline, though the page was on its way
    (a navigation asked for, a page still loading): late, not broken."""

    def __init__(self, message: str, *, step: int, selector: str = "") -> None:
        super().__init__(message, kind=LATE, selector=selector)
        self.step = step


def classify(error: BaseException) -> Kind:
    """The kind of a failure raised while a skill ran."""
    if isinstance(error, BrowserError):
        return LATE  # the browser itself went away or would not start: not the skill
    kind = getattr(error, "kind", "")
    if kind == NOT_APPLICABLE:
        return NOT_APPLICABLE
    if kind in (LATE, "timeout") or _timed_out(str(error)):
        return LATE
    if isinstance(error, ActionError) or kind:
        return BROKEN
    return LATE if "Timeout" in type(error).__name__ else BROKEN


def _timed_out(message: str) -> bool:
    """Whether a browser message says an action or a load ran out of time."""
    return "Timeout" in message and "exceeded" in message
