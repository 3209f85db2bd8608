"""Running the skill a command was routed to (or the planner called): healing stale
selectors on the way, and saying in plain words what failed, on which page, and what then."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from browser_agent.browser.session import session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.skills.runtime import (
    Repair,
    Repairs,
    SkillNotApplicable,
    SkillStale,
    StepHelper,
    repairing,
)
from browser_agent.store.connection import Store
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import loads, mark_stale, record_use


@dataclass
class SkillOutcome:
    """What calling a skill gave: its answer, or a plain-words failure for the planner;
    ``repairs`` lists the steps that only went on after healing or the planner's help;
    ``not_applicable`` is set when the skill did not apply to the command (it is not
    broken, and it did not do the command either)."""

    text: str
    ok: bool
    stale: SkillStale | None = None
    repairs: list[Repair] = field(default_factory=list)
    not_applicable: SkillNotApplicable | None = None


async def call_skill(
    store: Store,
    skill: SkillRow,
    function: Callable[..., Awaitable[str]],
    arguments: dict,
    helper: StepHelper | None = None,
) -> SkillOutcome:
    """Run a skill, healing stale selectors (and asking ``helper`` for a step healing cannot
    fix). A repaired or failed skill is marked stale, its healed selectors kept for the next
    version, and the answer says in plain words what failed, on which page, and what then.
    A skill that does not apply to the command (SkillNotApplicable) is neither marked nor
    counted: only the run's step records it; repairs made before it still mark it stale."""
    with repairing(helper) as repairs:
        try:
            answer = await function(**arguments)
        except SkillNotApplicable as exc:
            return _not_applicable(store, skill, repairs, exc)
        except SkillStale as exc:
            url = _url()
            _mark_stale(store, skill, repairs, f"step {exc.step}: {exc}")
            record_use(store, skill.id, ok=False, error=str(exc))
            return SkillOutcome(
                f"The harvested skill {skill.name} failed at its step {exc.step} on {url}: "
                f"{exc}{_repaired_before(repairs)} It is marked stale. Carry on with the "
                "primitive tools from the page as it is.",
                False,
                exc,
                repairs.done,
            )
        except (ActionError, BrowserError) as exc:
            if repairs.done:  # it had already left its recorded path: out of date
                said = f"{_repaired_before(repairs)} Then: {exc}".strip()
                _mark_stale(store, skill, repairs, said)
            record_use(store, skill.id, ok=False, error=str(exc))
            return SkillOutcome(
                f"The harvested skill {skill.name} failed on {_url()}: {exc}"
                f"{_repaired_before(repairs)} Carry on with the primitive tools from the page "
                "as it is.",
                False,
                repairs=repairs.done,
            )
    if repairs.done:
        said = " ".join(repair.said() for repair in repairs.done)
        _mark_stale(store, skill, repairs, said)
        record_use(store, skill.id, ok=True)
        return SkillOutcome(
            f"The harvested skill {skill.name} needed repairs on the way: {said} It finished, "
            f"but is marked stale until it passes validation. {answer}",
            True,
            repairs=repairs.done,
        )
    record_use(store, skill.id, ok=True)
    return SkillOutcome(str(answer), True)


def _not_applicable(
    store: Store, skill: SkillRow, repairs: Repairs, exc: SkillNotApplicable
) -> SkillOutcome:
    """The outcome of a skill that stopped because the command does not fit it."""
    state = "It is not broken and stays healthy"
    if repairs.done:  # the steps before needed repairs: out of date all the same
        _mark_stale(store, skill, repairs, _repaired_before(repairs).strip())
        state = f"{_repaired_before(repairs).strip()} So it is marked stale"
    return SkillOutcome(
        f"The harvested skill {skill.name} does not apply to this command, so it did not do "
        f"the task: {exc} {state}. The browser is on {_url()}. Carry on with the primitive "
        "tools from the page as it is.",
        False,
        repairs=repairs.done,
        not_applicable=exc,
    )


def _mark_stale(store: Store, skill: SkillRow, repairs: Repairs, error: str) -> None:
    """Mark the skill stale and keep its healed selectors as candidates for a next version."""
    healed = loads(skill.healed)
    healed = healed if isinstance(healed, dict) else {}
    for step, selectors in repairs.kept().items():
        healed.setdefault(step, {}).update(selectors)
    skill.status = "stale"
    mark_stale(store, skill.id, error, json.dumps(healed))


def _repaired_before(repairs: Repairs) -> str:
    if not repairs.done:
        return ""
    return " Before that, " + " ".join(repair.said() for repair in repairs.done)


def _url() -> str:
    try:
        return session().current_page().url
    except BrowserError:
        return "an unknown page"
