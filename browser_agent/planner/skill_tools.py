"""Harvested skills as planner tools: the ones the router chose, each with its skill's
signature, whose failures come back to the model as plain words."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, get_type_hints

from browser_agent.errors import ActionError
from browser_agent.planner.skill_call import call_skill
from browser_agent.skills.loader import SkillLoadError
from browser_agent.skills.stored import load_skill
from browser_agent.store.connection import Store
from browser_agent.store.rows import SkillRow


def skill_tools(
    store: Store, skills: Sequence[SkillRow], workspace: Path | None = None
) -> dict[str, Callable[..., Awaitable[str]]]:
    """``skills`` (the router's choice for the command) as planner tools, named after each
    skill; one whose code cannot be loaded is left out."""
    tools = {}
    for skill in skills:
        try:
            function = load_skill(skill, workspace)
        except SkillLoadError:
            continue
        tools[skill.name] = _as_tool(store, skill, function)
    return tools


def _as_tool(
    store: Store, skill: SkillRow, function: Callable[..., Awaitable[str]]
) -> Callable[..., Awaitable[str]]:
    """A tool with the skill's signature whose failures come back as plain words."""

    async def tool(**arguments: Any) -> str:
        if skill.status != "healthy":
            return f"The harvested skill {skill.name} is stale; use the primitive tools."
        outcome = await call_skill(store, skill, function, arguments)
        if not outcome.ok:
            kind = "skill_not_applicable" if outcome.not_applicable else "skill_failed"
            raise ActionError(outcome.text, kind=kind)
        return outcome.text

    tool.__name__ = skill.name
    tool.__doc__ = function.__doc__
    tool.__signature__ = inspect.signature(function, eval_str=True)  # type: ignore[attr-defined]
    tool.__annotations__ = get_type_hints(function, include_extras=True)
    return tool
