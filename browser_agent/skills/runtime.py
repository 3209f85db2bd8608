"""What generated skills call around each primitive: find the recorded element, check the
recorded effect, answer when done. Skills import these names from here, those harvested
by every version: the work is done in the modules named beside each group below.

A selector that now finds nothing, several elements, or another control is stale: the
skill stops with SkillStale instead of clicking the wrong thing. Inside ``repairing()`` (a
run, not a validation) a stale selector is healed at the smallest scope first (healing),
and when that fails an optional step helper (the planner) names the element for that one
step. Every repair is collected in the ``Repairs`` of the block, so the caller can record
it and mark the skill.
"""

from __future__ import annotations

from browser_agent.skills.address import by_address
from browser_agent.skills.answer import REMOVING, done
from browser_agent.skills.dialogs import answering_dialogs
from browser_agent.skills.effects import expect
from browser_agent.skills.finding import find
from browser_agent.skills.healing import (
    HEAL_ATTRIBUTES,
    IDENTIFYING,
    IDENTITY_ATTRIBUTES,
    heal_stages,
    placed_submit,
    relabelled,
    same_address,
)
from browser_agent.skills.naming import by_marks, by_name, by_role, named_by_value
from browser_agent.skills.run_state import Repair, Repairs, repairing
from browser_agent.skills.step_values import ordinal_value, path_items, with_case
from browser_agent.skills.targets import SkillNotApplicable, SkillStale, StepHelper, Target

__all__ = [
    "HEAL_ATTRIBUTES",
    "IDENTIFYING",
    "IDENTITY_ATTRIBUTES",
    "REMOVING",
    "Repair",
    "Repairs",
    "SkillNotApplicable",
    "SkillStale",
    "StepHelper",
    "Target",
    "answering_dialogs",
    "by_address",
    "by_marks",
    "by_name",
    "by_role",
    "done",
    "expect",
    "find",
    "heal_stages",
    "named_by_value",
    "ordinal_value",
    "path_items",
    "placed_submit",
    "relabelled",
    "repairing",
    "same_address",
    "with_case",
]
