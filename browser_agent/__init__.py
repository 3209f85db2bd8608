"""A browser-automation agent that learns reusable skills from its own runs.

``from browser_agent import Agent, Skill, RunResult`` gives the Python API (see docs/api.md);
its names load on first use, so ``import browser_agent`` stays cheap. The release and the
product's names (``__version__``, ``APP_NAME``, ``ENV_PREFIX``) are :mod:`browser_agent.names`'s,
which every layer may import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from browser_agent.names import APP_NAME as APP_NAME
from browser_agent.names import ENV_PREFIX as ENV_PREFIX
from browser_agent.names import __version__ as __version__

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
        SkillVersion,
        StepInfo,
    )
    from browser_agent.planner.agent import RunResult

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
    "SkillVersion",
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
