"""Whether a skill may do a whole command, decided when its health is written.

The router reads the ``routable`` field and nothing else of a skill's health: the field is
set wherever a skill's status, completeness or last error is written (a new version, a
verdict of harvest verification or validation, a mark at run time), from what the writer
knows, never read back from the wording of a message later.
"""

from __future__ import annotations

import json
import re

#: The start of the verdict on a skill that was not judged for want of a secret.
_SECRET_VERDICT = "needs a secret"
_STEP = re.compile(r"\bstep (\d+)\b", re.IGNORECASE)


def routable(
    status: str,
    complete: bool,
    plan: str,
    *,
    waiting_for_secret: bool = False,
    broken_step: int | None = None,
    healed: bool = False,
) -> bool:
    """A skill that may do a whole command: complete, and healthy, or only unverified for
    want of a secret that the command itself supplies, or stale at a step (``broken_step``,
    counted from 1) that an address of its plan does instead (see skills.address), or
    stale only because its run found a relabelled control again by what it is (``healed``:
    the run did the command; each run heals the same way until validation writes the
    version with the healed selectors)."""
    if not complete:
        return False
    if status == "healthy":
        return True
    if status == "candidate":
        return waiting_for_secret
    return status == "stale" and (healed or by_address_past(plan, broken_step))


def by_address_past(plan: str, broken_step: int | None) -> bool:
    """Whether a stale skill's broken step is one an address of its ``plan`` (JSON) does
    instead: the run's end address wraps every step, a button's address its own step."""
    try:
        data = json.loads(plan) if plan else None
    except json.JSONDecodeError:
        return False
    if not isinstance(data, dict):
        return False
    if data.get("end_address"):
        return True
    steps = data.get("steps")
    if broken_step is None or not isinstance(steps, list):
        return False
    index = broken_step - 1
    return (
        0 <= index < len(steps)
        and isinstance(steps[index], dict)
        and bool(steps[index].get("address"))
    )


def waits_for_secret(error: str | None) -> bool:
    """Whether a verdict only says a secret was missing (the skill was not judged)."""
    return (error or "").startswith(_SECRET_VERDICT)


def broken_step_of(error: str | None) -> int | None:
    """The step a failure names first ("step 3: ..."), as a verdict written it."""
    found = _STEP.search(error or "")
    return int(found.group(1)) if found else None


def routable_after(
    status: str,
    complete: bool,
    plan: str,
    error: str | None,
    step: int | None = None,
    healed: bool = False,
) -> bool:
    """The field's value for a skill whose health is being written: ``step`` when the writer
    knows where it broke, else the step its verdict ``error`` names."""
    return routable(
        status,
        complete,
        plan,
        waiting_for_secret=waits_for_secret(error),
        broken_step=step if step is not None else broken_step_of(error),
        healed=healed,
    )
