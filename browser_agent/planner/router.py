"""System 1: harvested skills as direct routes and as planner tools.

A command that matches a healthy skill's template runs that skill with zero LLM calls.
A skill whose step no longer fits the page is healed at the smallest scope first (see
harvest.runtime); a repaired or failed skill is marked stale with the failing step and
selector, and when it failed the planner carries on from the page as it is.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from browser_agent.browser.errors import ActionError, BrowserError
from browser_agent.browser.session import session
from browser_agent.harvest.loader import SkillLoadError, load_skill
from browser_agent.harvest.replay import NEEDS_SECRET
from browser_agent.harvest.runtime import Repair, Repairs, SkillStale, StepHelper, repairing
from browser_agent.store.models import Skill
from browser_agent.store.skills import current_skills, loads, record_use, update_skill

MAX_SKILL_TOOLS = 3


def template_pattern(template: str) -> re.Pattern[str]:
    """A regex matching commands of this template; each {param} captures its value."""
    parts = []
    for token in re.split(r"(\{\{|\}\}|\{\w+\})", template.strip()):
        if token == "{{":
            parts.append(re.escape("{"))
        elif token == "}}":
            parts.append(re.escape("}"))
        elif re.fullmatch(r"\{\w+\}", token):
            parts.append(f"(?P<{token[1:-1]}>.+?)")
        else:
            parts.append(r"\s+".join(re.escape(word) for word in token.split(" ")))
    return re.compile("".join(parts) + r"[.!]?", re.IGNORECASE | re.DOTALL)


@dataclass
class Route:
    """A skill that matches the command, with the arguments read from it."""

    skill: Skill
    arguments: dict[str, str]


def routable(skill: Skill) -> bool:
    """A skill that may do a whole command: complete, and healthy or only unverified for
    want of a secret that the command itself supplies."""
    waiting_for_secret = skill.status == "candidate" and skill.last_error == NEEDS_SECRET
    return skill.complete and (skill.status == "healthy" or waiting_for_secret)


def route(command: str, skills: Sequence[Skill]) -> Route | None:
    """The routable skill whose template matches the whole command, if any."""
    text = " ".join(command.split())
    for skill in skills:
        if not routable(skill):
            continue
        for template in json.loads(skill.command_templates or "[]"):
            match = template_pattern(template).fullmatch(text)
            if match:
                values = {k: v.strip() for k, v in match.groupdict().items()}
                if all(values.values()):
                    return Route(skill, values)
    return None


_FILLER = {
    "the",
    "and",
    "for",
    "with",
    "from",
    "into",
    "then",
    "that",
    "this",
    "you",
    "your",
    "are",
    "was",
    "page",
    "args",
    "returns",
    "what",
    "done",
    "final",
    "url",
}


def _content_words(text: str) -> set[str]:
    """The words that say what a command is about (no short or filler words)."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _FILLER}


def relevant(command: str, skills: Sequence[Skill], limit: int = MAX_SKILL_TOOLS) -> list[Skill]:
    """The few healthy skills whose templates share the most words with the command."""
    words = _content_words(command)

    def overlap(skill: Skill) -> int:
        text = " ".join(json.loads(skill.command_templates or "[]")) + " " + skill.docstring
        return len(words & _content_words(re.sub(r"\{\w+\}", " ", text)))

    scored = [(overlap(s), s.name, s) for s in skills if s.status == "healthy"]
    return [s for score, _name, s in sorted(scored, key=lambda t: (-t[0], t[1])) if score][:limit]


@dataclass
class SkillOutcome:
    """What calling a skill gave: its answer, or a plain-words failure for the planner;
    ``repairs`` lists the steps that only went on after healing or the planner's help."""

    text: str
    ok: bool
    stale: SkillStale | None = None
    repairs: list[Repair] = field(default_factory=list)


async def call_skill(
    engine: Engine,
    skill: Skill,
    function: Callable[..., Awaitable[str]],
    arguments: dict,
    helper: StepHelper | None = None,
) -> SkillOutcome:
    """Run a skill, healing stale selectors (and asking ``helper`` for a step healing cannot
    fix). A repaired or failed skill is marked stale, its healed selectors kept for the next
    version, and the answer says in plain words what failed, on which page, and what then."""
    with repairing(helper) as repairs:
        try:
            answer = await function(**arguments)
        except SkillStale as exc:
            url = _url()
            _mark_stale(engine, skill, repairs, f"step {exc.step}: {exc}")
            record_use(engine, skill.id, ok=False, error=str(exc))
            return SkillOutcome(
                f"The harvested skill {skill.name} failed at its step {exc.step} on {url}: "
                f"{exc}{_repaired_before(repairs)} It is marked stale. Carry on with the "
                "primitive tools from the page as it is.",
                False,
                exc,
                repairs.done,
            )
        except (ActionError, BrowserError) as exc:
            if repairs.done:  # it had already left its recorded path: out of date
                said = f"{_repaired_before(repairs)} Then: {exc}".strip()
                _mark_stale(engine, skill, repairs, said)
            record_use(engine, skill.id, ok=False, error=str(exc))
            return SkillOutcome(
                f"The harvested skill {skill.name} failed on {_url()}: {exc}"
                f"{_repaired_before(repairs)} Carry on with the primitive tools from the page "
                "as it is.",
                False,
                repairs=repairs.done,
            )
    if repairs.done:
        said = " ".join(repair.said() for repair in repairs.done)
        _mark_stale(engine, skill, repairs, said)
        record_use(engine, skill.id, ok=True)
        return SkillOutcome(
            f"The harvested skill {skill.name} needed repairs on the way: {said} It finished, "
            f"but is marked stale until it passes validation. {answer}",
            True,
            repairs=repairs.done,
        )
    record_use(engine, skill.id, ok=True)
    return SkillOutcome(str(answer), True)


def _mark_stale(engine: Engine, skill: Skill, repairs: Repairs, error: str) -> None:
    """Mark the skill stale and keep its healed selectors as candidates for a next version."""
    healed = loads(skill.healed)
    healed = healed if isinstance(healed, dict) else {}
    for step, selectors in repairs.kept().items():
        healed.setdefault(step, {}).update(selectors)
    skill.status = "stale"
    update_skill(engine, skill.id, status="stale", last_error=error, healed=json.dumps(healed))


def _repaired_before(repairs: Repairs) -> str:
    if not repairs.done:
        return ""
    return " Before that, " + " ".join(repair.said() for repair in repairs.done)


def _url() -> str:
    try:
        return session().current_page().url
    except BrowserError:
        return "an unknown page"


def skill_tools(engine: Engine, command: str) -> dict[str, Callable[..., Awaitable[str]]]:
    """The most relevant healthy skills as planner tools, named after the skill."""
    tools = {}
    for skill in relevant(command, current_skills(engine, "healthy")):
        try:
            function = load_skill(skill)
        except SkillLoadError:
            continue
        tools[skill.name] = _as_tool(engine, skill, function)
    return tools


def _as_tool(
    engine: Engine, skill: Skill, function: Callable[..., Awaitable[str]]
) -> Callable[..., Awaitable[str]]:
    """A tool with the skill's signature whose failures come back as plain words."""

    async def tool(**arguments: Any) -> str:
        if skill.status != "healthy":
            return f"The harvested skill {skill.name} is stale; use the primitive tools."
        outcome = await call_skill(engine, skill, function, arguments)
        if not outcome.ok:
            raise ActionError(outcome.text, kind="skill_failed")
        return outcome.text

    tool.__name__ = skill.name
    tool.__doc__ = function.__doc__
    tool.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    tool.__annotations__ = dict(function.__annotations__)
    return tool
