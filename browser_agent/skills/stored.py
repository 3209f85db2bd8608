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

Making the code needs the code generator (libcst), which a routed run does not otherwise
load: so a row found to check is marked in the workspace, and a run routed to a marked row
execs its code without making it again. Nothing a workspace or a store holds vouches for
code: a mark is named by an HMAC of the row's every byte and the release, under a key of
the person's own kept outside every workspace (see skills.check_key). Whoever writes the
store or the workspace cannot make a mark; a workspace copied to another place or person,
or a mark written by hand, names no row under that key, and the row is checked in full
(made again and compared), as is a row changed in a shared store.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from browser_agent.names import __version__
from browser_agent.skills.check_key import mark_name, user_key
from browser_agent.skills.loader import SkillFunction, SkillLoadError, module_function, source_hash

if TYPE_CHECKING:
    from browser_agent.store.rows import SkillRow

REFUSED = "refused"
BEFORE_PLANS = "made before plans were kept (its code alone is stored); harvest it again"
NOT_MADE = (
    "its stored code is not what its plan makes (the row was changed after harvesting, or "
    "another release made it); harvest it again"
)
BAD_HASH = "its stored hash does not match its code; harvest it again"
CHECKED = Path("skills") / ".checked"  # in the workspace: one empty file per checked row


class SkillRefused(SkillLoadError):
    """A stored skill whose plan or code does not check: it is never run."""


@lru_cache(maxsize=1024)
def _made(name: str, plan: str) -> str:
    """The module the plan (JSON text) makes for the skill ``name``; SkillRefused if none.
    The code generator is imported here, only when a row has not been checked before."""
    from browser_agent.plans.codegen import generate_module
    from browser_agent.plans.plan_data import PlanInvalid, read_plan

    try:
        return generate_module(read_plan(plan), name)
    except PlanInvalid as exc:
        raise SkillRefused(str(exc)) from None
    except Exception as exc:  # a plan that validates but that no code can be made from
        raise SkillRefused(f"its plan makes no code ({type(exc).__name__}: {exc})") from None


def _checked_mark(skill: SkillRow, workspace: Path) -> Path | None:
    """Where this workspace notes that this exact row (every byte of its name, plan, code
    and hash) was checked by this release, named under the person's key so that no one
    else can make it; None when there is no key to trust (every row is checked in full)."""
    key = user_key(workspace)
    if key is None:
        return None
    row = "\0".join((__version__, skill.name, skill.plan, skill.source, skill.source_hash))
    return workspace / CHECKED / mark_name(key, row.encode("utf-8"))


def made_code(skill: SkillRow, workspace: Path | None = None, *, note: bool = True) -> str:
    """The module made from the skill's stored plan, once the row's code and hash are
    found to be exactly it; SkillRefused (the reason in one line) otherwise. With
    ``workspace``, a row this release checked there before, under the person's key, is
    not made again (the mark names the row's every byte: any change is checked afresh);
    a row found to check is marked there unless ``note`` is False (a decision only reads)."""
    if not skill.plan:
        raise SkillRefused(BEFORE_PLANS)
    mark = _checked_mark(skill, workspace) if workspace is not None else None
    if mark is not None and mark.exists():
        return skill.source
    code = _made(skill.name, skill.plan)
    if skill.source != code:
        raise SkillRefused(NOT_MADE)
    if skill.source_hash != source_hash(code):
        raise SkillRefused(BAD_HASH)
    if mark is not None and note:
        try:
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()
        except OSError:  # a read-only workspace checks again next time
            pass
    return code


def refusal(skill: SkillRow, workspace: Path | None = None, *, note: bool = True) -> str | None:
    """Why the skill is refused, in one line; None when it checks (marked as checked in
    ``workspace`` unless ``note`` is False, see made_code)."""
    try:
        made_code(skill, workspace, note=note)
    except SkillRefused as exc:
        return str(exc)
    return None


def load_skill(skill: SkillRow, workspace: Path | None = None) -> SkillFunction:
    """The async function of a stored skill, from the module its plan makes; SkillRefused
    when the row does not check, SkillLoadError when the module does not load."""
    code = made_code(skill, workspace)
    stem = f"{skill.name}_v{skill.version}"
    return module_function(code, skill.name, stem, f"{skill.name} v{skill.version}")
