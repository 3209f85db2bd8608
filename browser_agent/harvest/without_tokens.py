"""Per-request tokens kept out of what a plan stores (see
:mod:`browser_agent.sites.request_tokens`): the start page, the pages a step lands on and
the elements recorded keep their URLs without them, and a hidden field, where sites keep
such tokens, is never typed into by a skill."""

from __future__ import annotations

from browser_agent.plans.plan import NotHarvestable, Param, SkillPlan
from browser_agent.sites.request_tokens import strip_tokens

_URL_ATTRIBUTES = ("href", "action", "src", "formaction")


def without_tokens(plan: SkillPlan) -> SkillPlan:
    """``plan`` with no token in any URL it keeps; NotHarvestable when a step types into a
    hidden field (where sites keep their CSRF tokens)."""
    command = plan.command
    plan.start_url = strip_tokens(plan.start_url, command)
    plan.end_url = strip_tokens(plan.end_url, command)
    for step in plan.steps:
        for target in step.targets.values():
            if target.attributes.get("type", "").lower() == "hidden":
                raise NotHarvestable(
                    f"{plan.source}: step {step.primitive} acts on the hidden field "
                    f"{target.attributes.get('name', '')!r}; a skill never types a page's "
                    "hidden values (per-request tokens live there)"
                )
            for key in _URL_ATTRIBUTES:
                if key in target.attributes:
                    target.attributes[key] = strip_tokens(target.attributes[key], command)
        if step.navigated_to:
            step.navigated_to = strip_tokens(step.navigated_to, command)
        url = step.arguments.get("url")
        if isinstance(url, Param) and isinstance(url.example, str):
            url.example = url.said = strip_tokens(url.example, command)
    return plan
