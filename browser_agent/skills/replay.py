"""Replaying a skill to decide whether it does its command: on the site's own other values,
fresh made-up ones, a thing made for it, or the example's, each run in a fresh browser
context (:mod:`browser_agent.skills.replay_session`), until one verdict stands."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Browser

from browser_agent.failure_kinds import BROKEN, NOT_APPLICABLE
from browser_agent.plans.plan_data import PlanInvalid, read_plan
from browser_agent.secrets import configured, how_to_set, missing
from browser_agent.settings import Settings
from browser_agent.skills.fresh import example_arguments, fresh_arguments, fresh_value
from browser_agent.skills.loader import SkillFunction, SkillLoadError
from browser_agent.skills.made_state import Maker, makers
from browser_agent.skills.replay_session import Relogin, Replay, session_run
from browser_agent.skills.stored import load_skill, made_code
from browser_agent.words.asks import asks

if TYPE_CHECKING:
    from browser_agent.store.rows import SkillRow

NEEDS_SECRET = "needs a secret (a password) that is never stored"


def lacking_secret(skill: SkillRow, secrets: Mapping[str, str]) -> str | None:
    """Why the skill cannot be replayed for want of a secret, naming it; None if it can."""
    arguments = example_arguments(skill, None)
    if any(value == "" for value in arguments.values()):  # masked when it was learnt
        return NEEDS_SECRET
    names = missing(arguments, secrets)
    if not names:
        return None
    return f"needs a secret: {', '.join(names)} is not configured ({how_to_set(names[0])})"


async def replay(
    skill: SkillRow,
    settings: Settings,
    browser: Browser | None = None,
    *,
    start_url: str | None = None,
    screenshot_dir: Path | None = None,
    secrets: Mapping[str, str] | None = None,
    trace_path: Path | None = None,
    pace: float = 0.0,
    relogin: Relogin | None = None,
    candidates: Sequence[SkillRow] = (),
    speculated: Mapping[int, str] | None = None,
    listed: Mapping[str, Sequence[str]] | None = None,
) -> Replay:
    """Run ``skill`` in a fresh context with its example arguments, fresh ones for what it
    only types (see fresh); passed means its end showed the values it was given (see
    end_state) and reached its recorded end (see end_address). Secrets come from
    ``secrets`` (the configured ones when None); a skill lacking one is not run. With
    ``trace_path``, a failed replay keeps a Playwright trace there, unless the skill types
    a secret (a trace holds every value typed). With ``relogin``, a replay that met the
    login page because the kept session expired logs in again and starts over. With no
    value it names on the page, a maker among ``candidates`` makes one (see made_state).

    ``speculated`` maps step numbers to readings the log could not prove (a link read as
    a fixed control of the site): a replay on fresh values that fails at one of them
    refutes it, and the example's own values are not tried (they would only repeat the
    demonstration). ``listed`` gives, for a parameter that names an element, other names
    the site listed beside it: the skill is replayed with those (the site's own fresh
    values), and one that does its command only with the demonstration's value fails (by
    default the names its plan kept at harvest; one gone since refutes nothing). A removal
    is never replayed to its end: its last step's element is found, not used, and only GET
    or HEAD requests leave the browser (see session_run); a thing a maker among
    ``candidates`` made for it is removed, tried first."""
    started = time.perf_counter()
    secrets = configured() if secrets is None else secrets
    lacking = lacking_secret(skill, secrets)
    if lacking:
        return Replay(False, error=lacking)
    example = example_arguments(skill, start_url)
    try:
        function = load_skill(skill, settings.workspace)
    except SkillLoadError as exc:  # a refused skill is never run
        return Replay(False, error=str(exc))
    # a replay never removes: a removal's last step is found, not used (see session_run)
    held_from, kept = plan_readings(skill)
    run = partial(
        session_run, function, skill=skill, settings=settings, browser=browser,
        secrets=secrets, pace=pace, relogin=relogin, held_from=held_from,
    )  # fmt: skip
    code = made_code(skill, settings.workspace)
    arguments = fresh_arguments(code, example)
    kept_listed = listed is None
    listed = kept if kept_listed else listed
    # names kept since the harvest: each may be gone since, so every one is tried
    most = 3 if kept_listed else 2
    offered = site_values(arguments, example, listed, most)
    kept = {"trace_path": trace_path, "screenshot_dir": screenshot_dir}
    made = partial(
        session_run, settings=settings, browser=browser, secrets=secrets,
        trace_path=None, screenshot_dir=None, pace=pace, relogin=relogin,
    )  # fmt: skip
    if held_from and candidates:  # a removal: to its end, on a thing made for it
        found = makers(skill, candidates, settings.workspace, start_url)
        on_made = await _on_made_state(skill, function, example, found, made)
        if on_made is not None:
            on_made.seconds = time.perf_counter() - started
            return on_made
    outcome = await _fresh_run(run, code, example, arguments, offered, speculated or {}, kept)
    at_speculated = outcome.step in (speculated or {})
    if not outcome.passed and outcome.fresh_tried and (offered or not at_speculated):
        again = fresh_arguments(code, example, frozenset({"typed"})) if at_speculated else example
        outcome = await _on_the_example(
            run, outcome, again, arguments, offered, kept_listed, at_speculated, kept
        )
    if not outcome.passed and outcome.kind == NOT_APPLICABLE and candidates and not held_from:
        found = makers(skill, candidates, settings.workspace, start_url)
        outcome = await _on_made_state(skill, function, example, found, made) or outcome
    outcome.seconds = time.perf_counter() - started
    return outcome


def plan_readings(skill: SkillRow) -> tuple[int, dict[str, list[str]]]:
    """From the skill's plan, read once: the step its replays hold back from (its last step
    that acts on an element, when its command removes what it names: a replay would remove
    the thing, or one the site listed beside it; else 0), and the other names the site
    listed beside its values at harvest (none for a plan that does not read)."""
    try:
        plan = read_plan(skill.plan) if skill.plan else None
    except PlanInvalid:
        plan = None
    if plan is None:
        return 0, {}
    removal = any(ask.kind == "remove" for ask in asks(plan.command))
    last = max((number for number, step in enumerate(plan.steps, 1) if step.targets), default=0)
    return (last if removal else 0), plan.listed


def site_values(
    arguments: dict[str, Any],
    example: Mapping[str, Any],
    listed: Mapping[str, Sequence[str]],
    most: int = 2,
) -> list[dict[str, Any]]:
    """The arguments with each parameter that names an element (kept at its example by
    fresh) set to another name the site listed beside it, one set per listed name, at
    ``most`` sets."""
    names = [n for n in listed if n in arguments and arguments[n] == example.get(n)]
    rounds = max((len(listed[n]) for n in names), default=0)
    return [
        {**arguments, **{n: listed[n][i] for n in names if i < len(listed[n])}}
        for i in range(min(rounds, most))
    ]


async def _fresh_run(
    run: Callable[..., Awaitable[Replay]],
    code: str,
    example: dict[str, Any],
    arguments: dict[str, Any],
    offered: list[dict[str, Any]],
    speculated: Mapping[int, str],
    kept: Mapping[str, Path | None],
) -> Replay:
    """The replay on values other than the example's: the site's own (``offered``, until
    one passes), else fresh made-up ones (``arguments``); the example's when there are
    none (traced and pictured as ``kept`` says: a failed fresh replay keeps none). At a
    speculated step that failed, an address's value is also read as naming a thing that
    exists (only what is typed is new); a failure there refutes the reading."""
    typed = fresh_arguments(code, example, frozenset({"typed"}))
    none: dict[str, Path | None] = {"trace_path": None, "screenshot_dir": None}
    outcome, site = Replay(False), {}
    for values in offered or [arguments]:
        fresh = values != example
        outcome = await run(values, **(none if fresh else kept))
        site = {name: value for name, value in values.items() if value != arguments.get(name)}
        if not outcome.passed and outcome.step in speculated and typed not in (arguments, example):
            outcome, fresh = await run({**typed, **site}, **none), True
        outcome.fresh, outcome.fresh_tried = outcome.passed and fresh, fresh
        if outcome.passed:
            break
    if not outcome.passed and outcome.step in speculated and not offered:
        outcome = await _one_kept(run, arguments, example, outcome)
    if not outcome.passed and outcome.fresh_tried and outcome.step in speculated:
        given = "".join(f", {name}={value!r}" for name, value in site.items())
        outcome.error = (
            f"step {outcome.step}: {speculated[outcome.step]} is refuted by a replay on fresh "
            f"values{given} ({outcome.error})"
        )
    return outcome


async def _one_kept(
    run: Callable[..., Awaitable[Replay]],
    arguments: dict[str, Any],
    example: Mapping[str, Any],
    failed: Replay,
) -> Replay:
    """With two or more fresh values, each in turn kept at the example's: one of them may
    name a thing that must exist (a ticket searched for by its number) while the others
    are written new (the comment added to it). The first that passes, else ``failed``."""
    changed = [name for name, value in arguments.items() if example.get(name) != value]
    if len(changed) < 2:
        return failed
    none: dict[str, Path | None] = {"trace_path": None, "screenshot_dir": None}
    for name in changed[:3]:
        outcome = await run({**arguments, name: example[name]}, **none)
        if outcome.passed:
            outcome.fresh = outcome.fresh_tried = True
            return outcome
    return failed


async def _failing_alone(
    run: Callable[..., Awaitable[Replay]], base: dict[str, Any], site: dict[str, Any]
) -> dict[str, Any]:
    """Of two or more of the site's values that failed together, those that fail alone
    (the others at ``base``, values that passed): a word of the command read as a
    navigation link ("the wiki page") is refuted without the page's name it came with."""
    if len(site) < 2:
        return site
    none: dict[str, Path | None] = {"trace_path": None, "screenshot_dir": None}
    failing = {}
    for name, value in site.items():
        if not (await run({**base, name: value}, **none)).passed:
            failing[name] = value
    return failing or site


def _given(values: Mapping[str, Any]) -> str:
    """Arguments as a verdict names them: ``title='Osprey', page=2``."""
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


def _only_on_example(fresh: Replay, site: Mapping[str, Any]) -> Replay:
    """The verdict on a skill that did its command with the demonstration's value but not
    with others the site listed beside it (``site``): not verified, saying with which."""
    fresh.error = (
        f"it did its command only with the demonstration's values: with {_given(site)} (listed "
        f"by the site beside them) {fresh.error}"
    )
    fresh.kind = BROKEN
    fresh.only_example = list(site)
    return fresh


async def _on_made_state(
    skill: SkillRow,
    function: SkillFunction,
    example: dict[str, str],
    found: Sequence[Maker],
    run: Callable[[SkillFunction, dict[str, str], SkillRow], Awaitable[Replay]],
) -> Replay | None:
    """The skill replayed on a thing a maker made for it with a fresh name (by the first
    maker that made one); None when none did."""
    for maker in found:
        named = example[maker.param]  # a name, or the names of boxes to tick
        first = named[0] if isinstance(named, list) and named else named
        value = fresh_value(first, uuid.uuid4().hex[:5])
        made = await run(maker.function, {**maker.arguments, maker.typed: value}, maker.skill)
        if made.passed:
            given = [value] if isinstance(named, list) else value
            outcome = await run(function, {**example, maker.param: given}, skill)
            outcome.made_by = maker.skill.name
            return outcome
    return None


async def _on_the_example(
    run: Callable[..., Awaitable[Replay]],
    fresh: Replay,
    again: dict[str, Any],
    arguments: Mapping[str, Any],
    offered: Sequence[Mapping[str, Any]],
    kept_listed: bool,
    at_speculated: bool,
    kept: Mapping[str, Any],
) -> Replay:
    """The verdict once fresh values failed (``fresh``): values a field cannot take (a
    date, an account that must exist) leave the example's own to try (``again``; failing
    at a speculated step, the example's names with fresh typed text, which refutes the
    site's other names rather than the speculated reading). A thing the site lists that
    met a broken step while the example is gone is that failure; a thing it lists that the
    skill did not do while it did the example means it does its command only with the
    demonstration's values."""
    outcome = await run(again, **kept)
    if not outcome.passed and at_speculated:
        return fresh
    if offered and outcome.kind == NOT_APPLICABLE and fresh.kind == BROKEN:
        site = {n: v for n, v in (fresh.arguments or {}).items() if v != again.get(n)}
        fresh.error = f"with {_given(site)} (listed by the site): {fresh.error}"
        return fresh
    if outcome.passed and offered and not (kept_listed and fresh.kind == NOT_APPLICABLE):
        tried = fresh.arguments or offered[-1]
        site = {name: v for name, v in tried.items() if v != arguments.get(name)}
        return _only_on_example(fresh, await _failing_alone(run, again, site))
    return outcome
