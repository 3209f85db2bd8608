"""A skill's next version from healed selectors: its module with each healed step's
``Target(selector=...)`` replaced through libcst, registered as a candidate version.

Selectors come from pages, so they only ever enter the tree as string-literal nodes.
"""

from __future__ import annotations

import json

import libcst as cst
from sqlalchemy import Engine

from browser_agent.harvest.codegen import string
from browser_agent.settings import Settings
from browser_agent.skills.loader import skill_code, source_hash
from browser_agent.store.models import Skill
from browser_agent.store.paths import to_store
from browser_agent.store.rows import SkillRow, columns
from browser_agent.store.skill_use import loads
from browser_agent.store.skills import add_version, update_skill, versions_of

# step (as text) -> {recorded selector: healed selector}, as Skill.healed keeps them
Healed = dict[str, dict[str, str]]
# Fields a new version does not inherit: its identity, code, end state, status and counts.
_PER_VERSION = {
    "id",
    "version",
    "current",
    "status",
    "module_path",
    "source",
    "source_hash",
    "expected_end",
    "selectors",
    "healed",
    "uses",
    "successes",
    "failures",
    "last_error",
    "last_validated_at",
    "created_at",
}


class _SwapSelectors(cst.CSTTransformer):
    """Replaces the selector of every ``Target(step=N, selector=S)`` that was healed."""

    def __init__(self, healed: Healed) -> None:
        self.healed = healed
        self.swapped: list[int] = []

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not (isinstance(updated_node.func, cst.Name) and updated_node.func.value == "Target"):
            return updated_node
        args = {arg.keyword.value: arg for arg in updated_node.args if arg.keyword}
        step, selector = args.get("step"), args.get("selector")
        if not (
            step
            and selector
            and isinstance(step.value, cst.Integer)
            and isinstance(selector.value, cst.SimpleString)
        ):
            return updated_node
        recorded = selector.value.evaluated_value
        new = self.healed.get(step.value.value, {}).get(str(recorded))
        if new is None:
            return updated_node
        self.swapped.append(int(step.value.value))
        changed = [
            arg.with_changes(value=string(new)) if arg is selector else arg
            for arg in updated_node.args
        ]
        return updated_node.with_changes(args=changed)


def heal_module(code: str, healed: Healed, version: int) -> str:
    """The module source with the healed selectors in place, and a header line saying so;
    ValueError when no Target of the module was healed."""
    swapper = _SwapSelectors(healed)
    module = cst.parse_module(code).visit(swapper)
    if not swapper.swapped:
        raise ValueError("none of the healed selectors belongs to a step of this module")
    steps = ", ".join(str(step) for step in sorted(set(swapper.swapped)))
    note = cst.EmptyLine(
        comment=cst.Comment(f"# Version {version} with healed selectors for steps {steps}.")
    )
    return module.with_changes(header=[*module.header, note]).code


def merge(*sources: Healed) -> Healed:
    """Healed selectors of several sources; later ones win for the same step and selector."""
    merged: Healed = {}
    for source in sources:
        for step, selectors in source.items():
            merged.setdefault(step, {}).update(selectors)
    return merged


def stored_healed(skill: Skill | SkillRow) -> Healed:
    """The healed selectors a skill's runs collected (an empty map when there are none)."""
    value = loads(skill.healed)
    return value if isinstance(value, dict) else {}


def write_healed_version(
    skill: Skill | SkillRow,
    healed: Healed,
    expected_end: str,
    settings: Settings,
    engine: Engine,
) -> Skill:
    """Write and register the next version of ``skill`` with ``healed`` selectors; it is a
    candidate, not current, until it passes validation. ValueError (nothing stored) when
    the healed selectors fit no step of the module."""
    version = max(older.version for older in versions_of(engine, skill.name)) + 1
    code = heal_module(skill_code(skill, settings.workspace)[0], healed, version)
    records = loads(skill.selectors)
    swaps = {old: new for selectors in healed.values() for old, new in selectors.items()}
    for record in records if isinstance(records, list) else []:
        record["selector"] = swaps.get(record.get("selector"), record.get("selector"))
    kept = {name: getattr(skill, name) for name in columns(SkillRow) if name not in _PER_VERSION}
    new = add_version(
        engine,
        Skill(
            **kept,
            version=version,
            module_path="",
            source=code,
            source_hash=source_hash(code),
            expected_end=expected_end,
            selectors=json.dumps(records),
        ),
        current=False,
    )
    path = settings.harvested_dir / f"{skill.name}_v{new.version}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code, encoding="utf-8")
    return update_skill(engine, new.id, module_path=to_store(path, settings.workspace))
