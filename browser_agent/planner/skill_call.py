"""Running the skill a command was routed to (or the planner called): healing stale
selectors on the way, and saying in plain words what failed, on which page, and what then.

A skill whose step no longer fits the page is healed at the smallest scope first (see
skills.runtime); a repaired or failed skill is marked stale with the failing step and
selector, and when it failed the planner carries on from the page as it is. A skill that
does not apply to the command (a name from the command is not on the page) stays healthy
and counts no failure; the planner is told so and carries on. What a use says of the
skill is written once, after the call (:func:`keep_use`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Page

from browser_agent.browser.awaiting import paced
from browser_agent.browser.session import session
from browser_agent.errors import ActionError, BrowserError
from browser_agent.failure_kinds import BROKEN, LATE, NOT_APPLICABLE, classify
from browser_agent.secrets import redact
from browser_agent.settings import Settings
from browser_agent.skills.end_state import EndNotShown
from browser_agent.skills.loader import SkillFunction
from browser_agent.skills.logins import RunLogin, landed_on_login, renew_login
from browser_agent.skills.runtime import (
    Repair,
    Repairs,
    SkillNotApplicable,
    SkillStale,
    StepHelper,
    Target,
    repairing,
)
from browser_agent.store.connection import Store
from browser_agent.store.health import OK, note_run, recorded_pace
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import loads, mark_stale


@dataclass
class SkillOutcome:
    """What calling a skill gave: its answer, or a plain-words failure for the planner;
    ``repairs`` lists the steps that only went on after healing or the planner's help;
    ``not_applicable`` is set when the skill did not apply to the command (it is not
    broken, and it did not do the command either); ``unverified`` when its steps ran but
    its final page does not show what the command gave (not done, as far as anyone can
    see: counted as broken, and the run ends unverified rather than doing it again).

    What the use says of the skill, kept by :func:`keep_use` after the call:
    ``stale_because`` (it is out of date: marked stale with why, ``healed`` holding the
    selectors healing found for its next version), ``kind`` (what it says of the skill's
    health: ok, late, not applicable or broken, see failure_kinds), ``counted_as`` (the
    kind the use is counted as, when not ``kind``), ``step`` and ``error`` (the failure
    kept with it)."""

    text: str
    ok: bool
    stale: SkillStale | None = None
    repairs: list[Repair] = field(default_factory=list)
    not_applicable: SkillNotApplicable | None = None
    unverified: EndNotShown | None = None
    stale_because: str | None = None
    healed: dict[str, dict[str, str]] = field(default_factory=dict)
    kind: str = OK
    counted_as: str | None = None
    step: int | None = None
    error: str | None = None

    @property
    def counted(self) -> bool:
        """Whether the use counts at all: one that did not apply counts none."""
        return (self.counted_as or self.kind) != NOT_APPLICABLE


async def call_skill(
    store: Store,
    skill: SkillRow,
    function: Callable[..., Awaitable[str]],
    arguments: dict,
    helper: StepHelper | None = None,
) -> SkillOutcome:
    """Run a skill (:func:`run_skill`) paced as the site's recorded steps were, then keep
    what the use says of it in the store (:func:`keep_use`): the one way a routed skill or a
    skill tool is called."""
    pace = recorded_pace(store, skill)
    outcome = await run_skill(skill, function, arguments, _unless_login(store, skill, helper), pace)
    login = None if outcome.ok else await landed_on_login(store, skill)
    if login is not None:  # the kept session expired: log in again, then start over
        renewed, said = await renew_login(store, login, run=counted_login(store))
        if not renewed:
            outcome.text = f"{said} {outcome.text}"
            outcome.stale_because, outcome.kind = None, NOT_APPLICABLE  # it never had its page
        else:
            outcome = await run_skill(skill, function, arguments, helper, pace)
            outcome.text = f"{said} {outcome.text}"
    keep_use(store, skill, outcome, _window())
    return outcome


def counted_login(store: Store) -> RunLogin:
    """Running a login skill (see skills.logins) as any other call: its use kept."""

    async def run(login: SkillRow, function: SkillFunction, arguments: dict[str, str]) -> bool:
        return (await call_skill(store, login, function, arguments)).ok

    return run


def _unless_login(store: Store, skill: SkillRow, helper: StepHelper | None) -> StepHelper | None:
    """``helper``, asked only off the site's login page: a step that met the login form
    because the session expired needs a new login, not the model."""
    if helper is None:
        return None

    async def ask(target: Target, page: Page, problem: str) -> str | None:
        if await landed_on_login(store, skill) is not None:
            return None
        return await helper(target, page, problem)

    return ask


async def run_skill(
    skill: SkillRow,
    function: Callable[..., Awaitable[str]],
    arguments: dict,
    helper: StepHelper | None = None,
    pace_s: float = 0.0,
) -> SkillOutcome:
    """Run a skill, healing stale selectors (and asking ``helper`` for a step healing cannot
    fix); the outcome says in plain words what failed, on which page, and what then, and
    what the use says of the skill. A repaired or failed skill is out of date; a skill
    that does not apply to the command (SkillNotApplicable) is not, and counts no use,
    unless repairs were made before it. Each failure has a kind (failure_kinds): only a
    broken one counts against the skill; a late one (the page or the browser was slower
    than the step's deadline, twice) does not. Nothing is written here."""
    with repairing(helper, known=_healed_of(skill)) as repairs, paced(pace_s) as pace:
        try:
            answer = await function(**arguments)
        except SkillNotApplicable as exc:
            return _not_applicable(skill, repairs, exc)
        except EndNotShown as exc:
            return SkillOutcome(
                f"The harvested skill {skill.name} ran its steps, but {exc}"
                f"{_repaired_before(repairs)}",
                False,
                repairs=repairs.done,
                unverified=exc,
                stale_because=_repaired_before(repairs).strip() if repairs.done else None,
                healed=repairs.kept(),
                kind=BROKEN,  # it ended in another state than the command asks for
                error=str(exc),
            )
        except SkillStale as exc:
            return SkillOutcome(
                f"The harvested skill {skill.name} failed at its step {exc.step} on {_url()}: "
                f"{exc}{_repaired_before(repairs)} It is marked stale. Carry on with the "
                "primitive tools from the page as it is.",
                False,
                exc,
                repairs.done,
                stale_because=f"step {exc.step}: {exc}",
                healed=repairs.kept(),
                kind=BROKEN,
                step=exc.step or None,
                error=str(exc),
            )
        except (ActionError, BrowserError) as exc:
            # a skill that had already left its recorded path is out of date
            said = f"{_repaired_before(repairs)} Then: {exc}".strip()
            kind = classify(exc)
            late = " The page or the browser was late, which does not count against it."
            return SkillOutcome(
                f"The harvested skill {skill.name} failed on {_url()}: {exc}"
                f"{_repaired_before(repairs)}{late if kind == LATE else ''} Carry on with the "
                "primitive tools from the page as it is.",
                False,
                repairs=repairs.done,
                stale_because=said if repairs.done else None,
                healed=repairs.kept(),
                kind=kind,
                step=getattr(exc, "step", None) or None,
                error=str(exc),
            )
    done = LATE if pace.late else OK  # it did the command, with a step that came late
    if repairs.done:
        said = " ".join(repair.said() for repair in repairs.done)
        return SkillOutcome(
            f"The harvested skill {skill.name} needed repairs on the way: {said} It finished, "
            f"but is marked stale until it passes validation. {answer}",
            True,
            repairs=repairs.done,
            stale_because=said,
            healed=repairs.kept(),
            kind=BROKEN,  # done, but not as recorded: its targets are gone
            counted_as=done,
            step=repairs.done[0].step,
            error=said,
        )
    return SkillOutcome(str(answer), True, kind=done)


def keep_use(store: Store, skill: SkillRow, outcome: SkillOutcome, window: int) -> None:
    """The bookkeeping of one use, in one place after the call: an out-of-date skill is
    marked stale (its healed selectors kept for the next version), then the use is
    counted by its kind (a failure only when broken) and kept in the skill's health window
    of ``window`` outcomes."""
    if outcome.stale_because is not None:
        in_place = outcome.ok and outcome.counted_as in (OK, LATE) and healed_only(outcome)
        said = _without_secrets(outcome.stale_because) or ""
        _mark_stale(store, skill, outcome.healed, said, in_place)
    note_run(
        store,
        skill.id,
        outcome.kind,
        window=window,
        step=outcome.step,
        error=_without_secrets(outcome.error),
        counted=outcome.counted_as,
    )


def _without_secrets(text: str | None) -> str | None:
    """``text`` with the running task's secrets masked: an address a skill reached may hold
    one (a login sent by GET), and the store keeps what it says."""
    try:
        active = session()
    except BrowserError:  # called outside a task: no secret is known
        return text
    return redact(text, active.secrets, active.secret_values)


def _not_applicable(skill: SkillRow, repairs: Repairs, exc: SkillNotApplicable) -> SkillOutcome:
    """The outcome of a skill that stopped because the command does not fit it."""
    state = "It is not broken and stays healthy"
    if repairs.done:  # the steps before needed repairs: out of date all the same
        state = f"{_repaired_before(repairs).strip()} So it is marked stale"
    return SkillOutcome(
        f"The harvested skill {skill.name} does not apply to this command, so it did not do "
        f"the task: {exc} {state}. The browser is on {_url()}. Carry on with the primitive "
        "tools from the page as it is.",
        False,
        repairs=repairs.done,
        not_applicable=exc,
        stale_because=_repaired_before(repairs).strip() if repairs.done else None,
        healed=repairs.kept(),
        kind=NOT_APPLICABLE,
        error=str(exc),
    )


def healed_only(outcome: SkillOutcome) -> bool:
    """Whether every repair of the run found its step's control again by its identity under
    another name (a relabelled control, as another interface language has it), none by
    the planner's help, its place alone or a redesign's other selector."""
    return bool(outcome.repairs) and all(r.kept and r.renamed for r in outcome.repairs)


def _healed_of(skill: SkillRow) -> dict[str, dict[str, str]]:
    """The selectors earlier runs healed the skill's steps to (see Repairs.known)."""
    healed = loads(skill.healed)
    if not isinstance(healed, dict):
        return {}
    return {
        str(step): {str(k): v for k, v in found.items() if isinstance(v, str)}
        for step, found in healed.items()
        if isinstance(found, dict)
    }


def _mark_stale(
    store: Store, skill: SkillRow, found: dict[str, dict[str, str]], error: str, in_place: bool
) -> None:
    """Mark the skill stale and keep its healed selectors as candidates for a next version;
    ``in_place``: the run did the command, healed only (it stays routable)."""
    healed = loads(skill.healed)
    healed = healed if isinstance(healed, dict) else {}
    for step, selectors in found.items():
        healed.setdefault(step, {}).update(selectors)
    skill.status = "stale"
    mark_stale(store, skill.id, error, json.dumps(healed), healed_in_place=in_place)


def _window() -> int:
    """How many outcomes a skill's health window keeps: the running task's setting."""
    try:
        return session().settings.health_window
    except BrowserError:  # called outside a task: the setting's default
        return int(Settings.model_fields["health_window"].default)


def _repaired_before(repairs: Repairs) -> str:
    if not repairs.done:
        return ""
    return " Before that, " + " ".join(repair.said() for repair in repairs.done)


def _url() -> str:
    try:
        return session().current_page().url
    except BrowserError:
        return "an unknown page"
