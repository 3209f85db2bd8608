"""The state of a running skill, held in two places by how far it reaches: what its steps
found and noted, per browser context (one run or replay each, several at once), weakly
held so it goes with the context; and the repairs it may make and the address it falls
back on, per task (a ContextVar), set by the blocks that wrap the skill's call."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field, replace
from typing import Any
from weakref import WeakKeyDictionary

from playwright.async_api import BrowserContext, Frame, Page

from browser_agent.browser.session import session
from browser_agent.skills.targets import StepHelper


@dataclass
class Repair:
    """One step whose recorded selector failed and the element that was used instead.

    ``kept`` says whether ``found`` is a stable selector worth a next version (healing),
    or a one-off choice of the planner (an mmid); ``renamed``, whether it is the recorded
    control under another name, found by its identity (another language's label).
    """

    step: int
    recorded: str
    found: str
    how: str
    problem: str
    kept: bool = True
    renamed: bool = False

    def said(self) -> str:
        """The repair in plain words, for the planner and the run's log."""
        return f"{self.problem} The step went on with {self.found}, found by {self.how}."


@dataclass
class Repairs:
    """The repairs made while a skill ran, and the helper it may ask (None: heal only);
    ``renamed_only``: a step is healed only to its control found by its identity under
    another name, else it stops the skill (nothing else is done on the site)."""

    helper: StepHelper | None = None
    done: list[Repair] = field(default_factory=list)
    renamed_only: bool = False
    # step (as text) -> {recorded selector: healed}: what earlier runs healed it to, waited
    # for beside the recorded one (healing still decides what the element is)
    known: dict[str, dict[str, str]] = field(default_factory=dict)

    def kept(self) -> dict[str, dict[str, str]]:
        """Healed selectors for the skill's next version: step -> {recorded: healed}."""
        healed: dict[str, dict[str, str]] = {}
        for repair in self.done:
            if repair.kept:
                healed.setdefault(str(repair.step), {})[repair.recorded] = repair.found
        return healed


@dataclass
class SkillRun:
    """What a skill running in one browser context keeps between its steps."""

    # step -> (frame, selector) of the element each step acted on
    found: dict[int, tuple[Page | Frame, str]] = field(default_factory=dict)
    # what the skill decided on its own (which of two same-named buttons), for its answer
    notes: list[str] = field(default_factory=list)
    # step -> the editor box it found, held as the element itself: editors relabel a box
    # once it holds text, so its selector no longer finds it when the text is checked
    pinned: dict[int, Any] = field(default_factory=dict)
    # step -> (the page's address, the clock) when the step found its element: what its
    # effect is awaited from
    began: dict[int, tuple[str, float]] = field(default_factory=dict)
    # step -> (the page's address, the selector) of an element found by a value the
    # command gave: what a removing command must leave gone
    named: dict[int, tuple[str, str]] = field(default_factory=dict)
    # step -> (notices, values typed earlier shown as text) on the page when it began
    says: dict[int, tuple[list[str], list[str]] | None] = field(default_factory=dict)
    # the values the skill typed, in order (never a secret; the last few)
    typed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RepairScope:
    """What the blocks around a running skill allow it, in this task: the repairs it
    collects (None: a stale step stops it, as in validation), the address its steps
    fall back on (see address.by_address; "" for none) and the step from which it only
    finds its elements (see holding_from)."""

    repairs: Repairs | None = None
    end_address: str = ""
    held_from: int = 0  # the first step found but not done (0: every step is done)


_runs: WeakKeyDictionary[BrowserContext, SkillRun] = WeakKeyDictionary()
# the default allows nothing and is frozen: a block sets a new scope, never changes it
_scope: ContextVar[RepairScope] = ContextVar(
    "browser_agent_repair_scope",
    default=RepairScope(),  # noqa: B039
)


def skill_run(context: BrowserContext | None = None) -> SkillRun:
    """The state of the skill running in ``context`` (the active session's by default)."""
    return _runs.setdefault(context if context is not None else session().context, SkillRun())


def repair_scope() -> RepairScope:
    """What this task's running skill is allowed: its repairs and its fallback address."""
    return _scope.get()


@contextmanager
def repairing(
    helper: StepHelper | None = None,
    *,
    renamed_only: bool = False,
    known: dict[str, dict[str, str]] | None = None,
) -> Iterator[Repairs]:
    """Skills called inside the block heal stale selectors (and ask ``helper`` when healing
    fails; with ``renamed_only``, only relabelled controls; ``known``: see Repairs);
    outside it, as in validation, a stale selector always stops the skill."""
    repairs = Repairs(helper, renamed_only=renamed_only, known=known or {})
    token = _scope.set(replace(_scope.get(), repairs=repairs))
    try:
        yield repairs
    finally:
        _scope.reset(token)


@contextmanager
def holding_from(step: int) -> Iterator[None]:
    """Skills called inside the block find the element of ``step`` and of every later
    step, and stop there with StepHeld instead of using it."""
    token = _scope.set(replace(_scope.get(), held_from=step))
    try:
        yield
    finally:
        _scope.reset(token)


def falling_back_on(address: str) -> Token[RepairScope]:
    """Make ``address`` the one this task's steps fall back on, until ``restore``."""
    return _scope.set(replace(_scope.get(), end_address=address))


def restore(token: Token[RepairScope]) -> None:
    """Give back what the task was allowed before ``falling_back_on``."""
    _scope.reset(token)
