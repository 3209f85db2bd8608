"""The Python API: carry out commands, harvest runs, call skills on your own Playwright page,
and read runs, from your own code with the settings the command line uses.

    from browser_agent import Agent

    agent = Agent(workspace="~/shop-agent", url="http://127.0.0.1:8811/")
    result = agent.run_sync("search for trail shoes and sort by price low to high")
    agent.harvest_sync(result.run_id)
    search = agent.skill("search_sort")
    await search(page, search_term="sandals", sort_by="customer rating")

Everything returned is a plain dataclass (no store rows); the store, the browser and the
planner load when a method needs them, so importing this module stays cheap.
"""

from __future__ import annotations

from browser_agent.api.agent import Agent
from browser_agent.api.records import (
    HarvestInfo,
    Parameter,
    RunInfo,
    RunNotFound,
    SkillArgumentError,
    SkillFailed,
    SkillInfo,
    SkillNotFound,
    SkillVersion,
    StepInfo,
)
from browser_agent.api.skill import Skill

__all__ = [
    "Agent",
    "HarvestInfo",
    "Parameter",
    "RunInfo",
    "RunNotFound",
    "Skill",
    "SkillArgumentError",
    "SkillFailed",
    "SkillInfo",
    "SkillNotFound",
    "SkillVersion",
    "StepInfo",
]
