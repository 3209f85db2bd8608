"""Loading harvested skill modules from the workspace by path."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from browser_agent.store.models import Skill

SkillFunction = Callable[..., Awaitable[str]]


class SkillLoadError(RuntimeError):
    """A skill module is missing or does not define its function."""


def load_skill(skill: Skill) -> SkillFunction:
    """The async function of a stored skill, imported from its module file."""
    path = Path(skill.module_path)
    if not path.exists():
        raise SkillLoadError(f"The module of skill {skill.name} is missing: {path}")
    module_name = f"skills.harvested.{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SkillLoadError(f"Cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken module must not break the agent
        raise SkillLoadError(f"Importing {path} failed: {exc}") from exc
    sys.modules[module_name] = module
    function = getattr(module, skill.name, None)
    if function is None:
        raise SkillLoadError(f"{path} defines no function {skill.name}")
    return function
