"""A browser-automation agent that learns reusable skills from its own runs.

``from browser_agent import Agent, Skill, RunResult`` gives the Python API (see docs/api.md);
its names load on first use, so ``import browser_agent`` stays cheap."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from browser_agent.api import (
        Agent,
        HarvestInfo,
        Parameter,
        RunInfo,
        RunNotFound,
        Skill,
        SkillArgumentError,
        SkillFailed,
        SkillInfo,
        SkillNotFound,
        StepInfo,
    )
    from browser_agent.planner.agent import RunResult

__version__ = "0.1.0"

APP_NAME = "browser-agent"  # the command, and the name of its data and cache folders
ENV_PREFIX = "BROWSER_AGENT_"  # of every setting's environment variable

__all__ = [
    "Agent",
    "HarvestInfo",
    "Parameter",
    "RunInfo",
    "RunNotFound",
    "RunResult",
    "Skill",
    "SkillArgumentError",
    "SkillFailed",
    "SkillInfo",
    "SkillNotFound",
    "StepInfo",
]


def __getattr__(name: str) -> object:
    """The API's names, imported when first asked for (PEP 562)."""
    if name == "RunResult":
        from browser_agent.planner.agent import RunResult

        return RunResult
    if name in __all__:
        from browser_agent import api

        return getattr(api, name)
    raise AttributeError(f"module 'browser_agent' has no attribute {name!r}")
