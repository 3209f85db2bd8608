"""System 1: harvested skills as direct routes and as planner tools.

A command that matches a healthy skill's template runs that skill with zero LLM calls.
A skill that fails is marked stale with the failing step and selector, and the planner
carries on from the page as it is.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from browser_agent.browser.errors import ActionError, BrowserError
from browser_agent.browser.session import session
from browser_agent.harvest.loader import SkillLoadError, load_skill
from browser_agent.harvest.runtime import SkillStale
from browser_agent.store.models import Skill
from browser_agent.store.skills import current_skills, record_use, update_skill

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


def route(command: str, skills: Sequence[Skill]) -> Route | None:
    """The healthy skill whose template matches the whole command, if any."""
    text = " ".join(command.split())
    for skill in skills:
        if skill.status != "healthy":
            continue
        for template in json.loads(skill.command_templates or "[]"):
            match = template_pattern(template).fullmatch(text)
            if match:
                values = {k: v.strip() for k, v in match.groupdict().items()}
                if all(values.values()):
                    return Route(skill, values)
    return None


def relevant(command: str, skills: Sequence[Skill], limit: int = MAX_SKILL_TOOLS) -> list[Skill]:
    """The few healthy skills whose templates share the most words with the command."""
    words = set(re.findall(r"[a-z]+", command.lower()))

    def overlap(skill: Skill) -> int:
        text = " ".join(json.loads(skill.command_templates or "[]")) + " " + skill.docstring
        return len(words & set(re.findall(r"[a-z]+", text.lower())))

    scored = [(overlap(s), s.name, s) for s in skills if s.status == "healthy"]
    return [s for score, _name, s in sorted(scored, key=lambda t: (-t[0], t[1])) if score][:limit]


@dataclass
class SkillOutcome:
    """What calling a skill gave: its answer, or a plain-words failure for the planner."""

    text: str
    ok: bool
    stale: SkillStale | None = None


async def call_skill(
    engine: Engine, skill: Skill, function: Callable[..., Awaitable[str]], arguments: dict
) -> SkillOutcome:
    """Run a skill; on failure mark it stale and say what failed and on which page."""
    try:
        answer = await function(**arguments)
    except SkillStale as exc:
        url = _url()
        update_skill(engine, skill.id, status="stale", last_error=f"step {exc.step}: {exc}")
        record_use(engine, skill.id, ok=False, error=str(exc))
        return SkillOutcome(
            f"The harvested skill {skill.name} failed at its step {exc.step} on {url}: {exc} "
            "It is marked stale. Carry on with the primitive tools from the page as it is.",
            False,
            exc,
        )
    except (ActionError, BrowserError) as exc:
        record_use(engine, skill.id, ok=False, error=str(exc))
        return SkillOutcome(
            f"The harvested skill {skill.name} failed on {_url()}: {exc} "
            "Carry on with the primitive tools from the page as it is.",
            False,
        )
    record_use(engine, skill.id, ok=True)
    return SkillOutcome(str(answer), True)


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
        if outcome.stale:
            skill.status = "stale"
        if not outcome.ok:
            raise ActionError(outcome.text, kind="skill_failed")
        return outcome.text

    tool.__name__ = skill.name
    tool.__doc__ = function.__doc__
    tool.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    tool.__annotations__ = dict(function.__annotations__)
    return tool
