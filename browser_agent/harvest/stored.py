"""A stored skill made runnable: its plan read and checked, its module made from the plan.

Nothing a store row holds is executed as written. The module that runs is generated at
load time from the row's plan (JSON, validated by pydantic) by the same codegen that
harvesting uses, so every value in it entered the tree as a literal node. The row's code
(``source``, the copy ``skills show``, the console and skills/harvested/ show) must also be
byte for byte what the plan makes, and its hash must match: otherwise the code a person
reads is not the code that runs, and the skill is refused rather than guessed at. Both
checks, not one: generating alone would let a changed ``source`` sit unnoticed beside the
plan; comparing alone would run what the row holds.

A refused skill is never routed, offered to the planner or replayed; ``skills``, ``skills
show``, ``validate`` and the console show it refused with the reason in one line. A plan
edited into another valid plan, with its code made to match, is a different skill that
only ever calls primitives with literal values: the store cannot tell it from a harvest
(whoever writes the store chooses its skills), but no Python of theirs runs. Skills made
before plans were kept (code alone) are refused: harvesting their runs again makes a
version with a plan. A release whose codegen writes other code for the same plan refuses
older skills the same way, saying so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from browser_agent.harvest.codegen import generate_module
from browser_agent.harvest.plan_data import PlanInvalid, read_plan
from browser_agent.skills.loader import SkillFunction, SkillLoadError, module_function, source_hash

if TYPE_CHECKING:
    from browser_agent.store.models import Skill
    from browser_agent.store.rows import SkillRow

REFUSED = "refused"
BEFORE_PLANS = "made before plans were kept (its code alone is stored); harvest it again"
NOT_MADE = (
    "its stored code is not what its plan makes (the row was changed after harvesting, or "
    "another release made it); harvest it again"
)
BAD_HASH = "its stored hash does not match its code; harvest it again"


class SkillRefused(SkillLoadError):
    """A stored skill whose plan or code does not check: it is never run."""


@lru_cache(maxsize=1024)
def _made(name: str, plan: str) -> str:
    """The module the plan (JSON text) makes for the skill ``name``; SkillRefused if none."""
    try:
        return generate_module(read_plan(plan), name)
    except PlanInvalid as exc:
        raise SkillRefused(str(exc)) from None
    except Exception as exc:  # a plan that validates but that no code can be made from
        raise SkillRefused(f"its plan makes no code ({type(exc).__name__}: {exc})") from None


def made_code(skill: Skill | SkillRow) -> str:
    """The module made from the skill's stored plan, once the row's code and hash are
    found to be exactly it; SkillRefused (the reason in one line) otherwise."""
    if not skill.plan:
        raise SkillRefused(BEFORE_PLANS)
    code = _made(skill.name, skill.plan)
    if skill.source != code:
        raise SkillRefused(NOT_MADE)
    if skill.source_hash != source_hash(code):
        raise SkillRefused(BAD_HASH)
    return code


def refusal(skill: Skill | SkillRow) -> str | None:
    """Why the skill is refused, in one line; None when it checks."""
    try:
        made_code(skill)
    except SkillRefused as exc:
        return str(exc)
    return None


def load_skill(skill: Skill | SkillRow) -> SkillFunction:
    """The async function of a stored skill, from the module its plan makes; SkillRefused
    when the row does not check, SkillLoadError when the module does not load."""
    code = made_code(skill)
    stem = f"{skill.name}_v{skill.version}"
    return module_function(code, skill.name, stem, f"{skill.name} v{skill.version}")
