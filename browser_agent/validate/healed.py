"""A skill's next version from healed selectors: its stored plan with each healed step's
target selector replaced, made into a module by the codegen and registered as a candidate
version (with that plan: a version's module is always made from its plan).

Selectors come from pages: they only ever enter the plan as data and the module as
string-literal nodes.
"""

from __future__ import annotations

import dataclasses
import json

from sqlalchemy import Engine

from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import ElementRecord, SkillPlan
from browser_agent.plans.plan_data import plan_text, read_plan
from browser_agent.settings import Settings
from browser_agent.skills.loader import source_hash
from browser_agent.skills.naming import role_and_name
from browser_agent.skills.stored import made_code
from browser_agent.store.models import Skill
from browser_agent.store.paths import to_store
from browser_agent.store.rows import SkillRow, columns
from browser_agent.store.skill_use import loads
from browser_agent.store.skills import add_version, update_skill, versions_of

# step (as text) -> {recorded selector: healed selector}, as Skill.healed keeps them
Healed = dict[str, dict[str, str]]
# Fields a new version does not inherit: its identity, plan, code, end state, status, counts.
_PER_VERSION = {
    "id",
    "version",
    "current",
    "status",
    "module_path",
    "plan",
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


def heal_plan(plan: SkillPlan, healed: Healed, version: int) -> SkillPlan:
    """The plan with the healed selectors in place of the recorded ones (steps numbered
    from 1, as the module's ``Target(step=N)``) and a header note saying so; ValueError
    when no target of the plan was healed."""
    swapped: list[int] = []
    steps = []
    for number, step in enumerate(plan.steps, start=1):
        swaps = healed.get(str(number), {})
        targets = {}
        for key, record in step.targets.items():
            new = swaps.get(record.selector)
            if new is not None:
                swapped.append(number)
                record = _healed(record, new)
            targets[key] = record
        steps.append(dataclasses.replace(step, targets=targets))
    if not swapped:
        raise ValueError("none of the healed selectors belongs to a step of this skill")
    said = ", ".join(str(step) for step in sorted(set(swapped)))
    note = f"Version {version} with healed selectors for steps {said}."
    return dataclasses.replace(plan, steps=steps, note=note)


def _healed(record: ElementRecord, selector: str) -> ElementRecord:
    """The record with its healed selector; one by its role and another name (a control
    relabelled by another language) gives it that name, so the step expects the control
    under the name it goes by now, whatever values the skill is given."""
    named = role_and_name(selector)
    if named is None or named[0] != record.role or named[1] == record.name:
        return dataclasses.replace(record, selector=selector)
    old, name = record.name, named[1]
    return dataclasses.replace(
        record,
        selector=selector,
        name=name,
        text=name if record.text == old else record.text,
        xpath=record.xpath.replace(f"'{old}'", f"'{name}'") if "'" not in name else "",
    )


def merge(*sources: Healed) -> Healed:
    """Healed selectors of several sources; later ones win for the same step and selector."""
    merged: Healed = {}
    for source in sources:
        for step, selectors in source.items():
            merged.setdefault(step, {}).update(selectors)
    return merged


def stored_healed(skill: SkillRow) -> Healed:
    """The healed selectors a skill's runs collected (an empty map when there are none)."""
    value = loads(skill.healed)
    return value if isinstance(value, dict) else {}


def write_healed_version(
    skill: SkillRow,
    healed: Healed,
    expected_end: str,
    settings: Settings,
    engine: Engine,
) -> Skill:
    """Write and register the next version of ``skill`` with ``healed`` selectors; it is a
    candidate, not current, until it passes validation. ValueError (nothing stored) when
    the healed selectors fit no step of the skill; SkillRefused when the skill itself is
    refused (its plan or code does not check)."""
    made_code(skill)
    version = max(older.version for older in versions_of(engine, skill.name)) + 1
    plan = heal_plan(read_plan(skill.plan), healed, version)
    code = generate_module(plan, skill.name)
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
            plan=plan_text(plan),
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
