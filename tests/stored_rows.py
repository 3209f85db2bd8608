"""Changing a stored skill's row the way someone with write access to the store could:
its plan (JSON) edited, and its code and hash made to match what the edited plan makes; and
skill rows made from a plan written by hand, as harvesting would write them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import RUN_ENDED, ElementRecord, Param, PlannedStep, SkillPlan
from browser_agent.plans.plan_data import plan_text, read_plan
from browser_agent.skills.loader import source_hash
from browser_agent.store.models import Skill
from browser_agent.store.skills import update_skill


def rewritten(engine: Engine, skill: Skill, edit: Callable[[dict[str, Any]], None]) -> Skill:
    """The skill with its plan edited by ``edit`` and its code and hash made from that plan:
    a row changed consistently, as only a harvest would otherwise write it."""
    plan = json.loads(skill.plan)
    edit(plan)
    text = json.dumps(plan)
    code = generate_module(read_plan(text), skill.name)
    return update_skill(engine, skill.id, plan=text, source=code, source_hash=source_hash(code))


def opening(url: str) -> PlannedStep:
    """A plan's first step: open the page the skill starts from."""
    return PlannedStep("open_url", {"url": Param("start_url", "", url)})


def clicking(selector: str, role: str, name: str, tag: str, **more: Any) -> PlannedStep:
    """A step that clicks the element ``selector`` recorded as ``role`` ``name``."""
    record = ElementRecord(selector, role, name, tag)
    return PlannedStep("click", {"selector": selector}, {"selector": record}, **more)


def planned_skill(name: str, template: str, steps: list[PlannedStep], **fields: Any) -> Skill:
    """A skill row as harvesting writes it: the plan of ``steps`` (parameters in
    ``params``, the start page in ``start_url``), and the code it makes for ``name``."""
    params = fields.pop("params", [])
    plan = SkillPlan(
        command=template,
        template=template,
        params=params,
        steps=steps,
        start_url=fields.get("start_url", ""),
        end_url="",
        ended_because=RUN_ENDED,
        source="a test",
    )
    code = generate_module(plan, name)
    return Skill(
        name=name,
        module_path=f"{name}_v1.py",
        shape=template,
        command_templates=json.dumps([template]),
        plan=plan_text(plan),
        source=code,
        source_hash=source_hash(code),
        **fields,
    )
