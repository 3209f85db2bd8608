"""Loading harvested skills: from the source kept in the store, else from the module file.

The store keeps each skill's code with its hash, so a moved or copied workspace, or a
worker on another machine, runs the very code that was harvested and verified; the file
in skills/harvested/ is the copy people read. Stores made before the code was kept there
load the file (its stored path is found again in a moved workspace).

Skills harvested before the primitives moved into the package import them as
``skills.primitive``; each skill module sees that name as ``browser_agent.skills.primitive``
through an import of its own, so no top-level ``skills`` is ever registered and a user's
own ``skills`` package stays theirs. Skills harvested before the runtime moved beside the
primitives import it as ``browser_agent.harvest.runtime``: they get
``browser_agent.skills.runtime`` the same way (their code, and its hash, stay as harvested).
"""

from __future__ import annotations

import builtins
import hashlib
import sys
import types
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from browser_agent.errors import BrowserAgentError
from browser_agent.store.paths import from_store

if TYPE_CHECKING:
    from browser_agent.store.models import Skill
    from browser_agent.store.rows import SkillRow

SkillFunction = Callable[..., Awaitable[str]]

#: The packages skills of earlier releases import, and where they live now.
LEGACY_PACKAGES = ("skills.primitive", "skills.harvested")
#: Modules skills of earlier releases import by a name they no longer have: the one now.
MOVED_MODULES = {"browser_agent.harvest.runtime": "browser_agent.skills.runtime"}


class SkillLoadError(BrowserAgentError, RuntimeError):
    """A skill's code is missing, altered, or does not define its function."""


def source_hash(code: str) -> str:
    """The hash the store keeps beside a skill's code."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def skill_code(skill: Skill | SkillRow, workspace: Path | None = None) -> tuple[str, str]:
    """The skill's code and where it came from (for messages); SkillLoadError when it
    cannot be had, or the stored code does not match its hash."""
    if skill.source:
        if skill.source_hash and source_hash(skill.source) != skill.source_hash:
            raise SkillLoadError(
                f"The stored code of skill {skill.name} v{skill.version} does not match its "
                "hash: it was changed after it was harvested. Harvest it again."
            )
        return skill.source, f"the store ({skill.name} v{skill.version})"
    path = from_store(skill.module_path, workspace) if workspace else Path(skill.module_path)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillLoadError(f"The module of skill {skill.name} is missing: {path}") from exc


def _skill_import(
    name: str,
    globals_: dict | None = None,
    locals_: dict | None = None,
    fromlist: tuple[str, ...] | list[str] | None = (),
    level: int = 0,
) -> types.ModuleType:
    """``__import__`` for skill modules: ``skills.primitive`` (and ``skills.harvested``) of
    earlier releases are the package's own, a moved module (``from OLD import ...``) is
    where it lives now; every other import is the ordinary one."""
    if level == 0 and fromlist and name in MOVED_MODULES:
        return builtins.__import__(MOVED_MODULES[name], globals_, locals_, fromlist, 0)
    if level == 0 and any(name == p or name.startswith(f"{p}.") for p in LEGACY_PACKAGES):
        module = builtins.__import__(f"browser_agent.{name}", globals_, locals_, fromlist, 0)
        # ``import skills.primitive`` binds ``skills``: the package that holds both
        return module if fromlist else sys.modules["browser_agent.skills"]
    return builtins.__import__(name, globals_, locals_, fromlist, level)


def _skill_builtins() -> dict:
    """The builtins a skill module runs with: the usual ones, with its own import."""
    return {**vars(builtins), "__import__": _skill_import}


def load_skill(skill: Skill | SkillRow, workspace: Path | None = None) -> SkillFunction:
    """The async function of a stored skill (``workspace``: where relative paths of stores
    without kept code are found)."""
    code, origin = skill_code(skill, workspace)
    stem = Path(skill.module_path).stem or f"{skill.name}_v{skill.version}"
    module_name = f"browser_agent.skills.harvested.{stem}"
    module = types.ModuleType(module_name)
    module.__file__ = origin if origin.endswith(".py") else f"<{origin}>"
    module.__builtins__ = _skill_builtins()  # type: ignore[attr-defined]
    try:
        # dont_inherit: the module is compiled on its own terms, not with this file's
        # "from __future__ import annotations" (its annotations must stay objects)
        exec(compile(code, module.__file__, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    except Exception as exc:  # a broken module must not break the agent
        raise SkillLoadError(f"Importing {origin} failed: {exc}") from exc
    sys.modules[module_name] = module
    function = getattr(module, skill.name, None)
    if function is None:
        raise SkillLoadError(f"{origin} defines no function {skill.name}")
    return function
