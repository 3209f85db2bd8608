"""Asking the planner for one skill step: the element that healing could not find.

The model sees the page (get_dom) and names the element with choose_element; the call is
not an action: the skill then acts on that element with its own values, so a step is
never done twice.
"""

from __future__ import annotations

from typing import Annotated, Any

from browser_agent.planner.prompts import prompt
from browser_agent.skills.runtime import Target

MAX_HELP_CALLS = 4  # model calls a run may spend on skill steps before the skill gives up


async def choose_element(
    selector: Annotated[str, "The element that does the step, as [mmid='12'] from get_dom."],
) -> str:
    """Name the element the skill's step should act on; the skill then does the step."""
    return selector


def step_messages(target: Target, url: str, problem: str) -> list[dict[str, Any]]:
    """The focused conversation for one step: what it must do and what was recorded."""
    attributes = " ".join(f'{k}="{v}"' for k, v in sorted(target.attributes.items()))
    task = prompt("step_task").format(
        url=url,
        step=target.step,
        intent=target.intent or f"act on the {target.role} {target.name!r}",
        role=target.role,
        name=target.name,
        tag=f"<{target.tag or 'element'} {attributes}>".replace(" >", ">"),
        problem=problem,
    )
    return [
        {"role": "system", "content": prompt("step").strip()},
        {"role": "user", "content": task.strip()},
    ]
