"""Changing a stored skill's row the way someone with write access to the store could:
its plan (JSON) edited, and its code and hash made to match what the edited plan makes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from browser_agent.harvest.codegen import generate_module
from browser_agent.harvest.plan_data import read_plan
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
