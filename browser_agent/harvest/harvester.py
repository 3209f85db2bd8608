"""The harvest job: logs in, verified skill modules and store rows out.

Harvesting is idempotent: each source (a run, or another agent's log file with its
content) is harvested once and remembered with its outcome; one command shape has one
skill, and a plan of that shape becomes its next version only when its code differs from
the current version's. One bad log never stops a batch: each source gets its own
HarvestResult.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.failure_kinds import BROKEN, LATE
from browser_agent.harvest.calls import LogError
from browser_agent.harvest.detours import run_detours
from browser_agent.harvest.logs import read_log
from browser_agent.harvest.outcomes import (
    ALREADY,
    FAILED,
    NEW_SKILL,
    NEW_VERSION,
    SKIPPED,
    UNCHANGED,
)
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.harvest.sameness import module_fingerprint, same_module
from browser_agent.harvest.sources import SourceKey, source_key
from browser_agent.harvest.without_tokens import without_tokens
from browser_agent.plans.codegen import generate_module, skill_name
from browser_agent.plans.plan import (
    ByRoleName,
    NotHarvestable,
    NthOfRole,
    SkillPlan,
    made_by_the_app,
)
from browser_agent.plans.plan_data import plan_text
from browser_agent.settings import Settings
from browser_agent.skills.loader import SkillLoadError, source_hash
from browser_agent.skills.logins import relogin
from browser_agent.skills.replay import replay
from browser_agent.skills.replay_session import Replay, relative
from browser_agent.skills.stored import load_skill, made_code
from browser_agent.store.candidates import VERIFICATION, earn_place
from browser_agent.store.connection import Store
from browser_agent.store.health import OK, keep_outcome, recorded_pace
from browser_agent.store.models import HarvestedSource, Skill
from browser_agent.store.paths import to_store
from browser_agent.store.routability import waits_for_secret
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import (
    TemplateConflict,
    add_source,
    add_version,
    harvested_source,
    keep_check,
    merge_templates,
    name_taken,
    normalise_shape,
    remember_source,
    skill_for_shape,
    skill_source_runs,
    templates_of,
    update_skill,
    versions_of,
)
from browser_agent.tools import tool_schema

#: Why a call refuted by the replays is left out (see harvest_one).
ONLY_THE_EXAMPLE = "replays on fresh values showed only the demonstration's values needed it"


@dataclass
class HarvestResult:
    """What harvesting one log gave: a skill (with its source) or the reason there is none.

    ``outcome`` is one of the constants above; ``name`` is the skill made, joined or (in a
    dry run) that would be; ``reason`` says why a source was skipped or failed, or when it
    was harvested before, without the source's path (``error`` has both)."""

    source: str
    skill: Skill | None = None
    code: str | None = None
    error: str | None = None
    verified: bool | None = None
    verify_error: str | None = None
    verified_on: str | None = None  # the skill that made the state its replay needed
    outcome: str = ""
    name: str | None = None
    reason: str | None = None
    earlier: str | None = None  # dry run: what harvesting this source gave before
    dropped: list[str] = field(default_factory=list)  # calls of the log left out, and why
    # per speculated step: its reading and what the verifying replay made of it
    readings: list[str] = field(default_factory=list)
    unreadable: bool = False  # the log could not be read: tried again next time
    # values of the command that name an element and that other names the site listed
    # could not stand in for: the element is one the command names, not a choice
    named: list[str] = field(default_factory=list)
    # the log's calls (indexes) of steps read as fixed controls that replays on fresh
    # values refuted: steps only the demonstration's values needed
    refuted: list[int] = field(default_factory=list)


@dataclass
class Draft:
    """A plan with the skill it belongs to, its module's code and the templates it answers.

    ``joins`` is the current version of the skill of the same command shape, when there
    is one: the draft is then that skill's next version, keeping its name, its shape and
    every command template it answered."""

    plan: SkillPlan
    name: str
    code: str
    templates: list[str]
    shape: str
    joins: Skill | None = None

    @property
    def unchanged(self) -> bool:
        """True when the current version already has this code (provenance aside)."""
        if self.joins is None:
            return False
        return same_module(self.code, module_source(self.joins))

    def same_version(self, engine: Engine) -> Skill | None:
        """The version of the skill that already does what this code does (the current
        one first, then the newest other): a harvest of it makes no new version."""
        if self.joins is None:
            return None
        if self.unchanged:
            return self.joins
        others = [v for v in versions_of(engine, self.name) if v.id != self.joins.id]
        return next((v for v in reversed(others) if same_module(self.code, module_source(v))), None)


def module_source(skill: Skill) -> str | None:
    """The code of a skill version's module, or None when it is refused (see stored)."""
    try:
        return made_code(skill)
    except SkillLoadError:
        return None


def unique_name(engine: Engine, template: str) -> str:
    """A snake_case name no other skill has."""
    base = skill_name(template)
    name, n = base, 2
    while name_taken(engine, name):
        name, n = f"{base}_{n}", n + 1
    return name


def draft_skill(plan: SkillPlan, engine: Engine, *, skill: Skill | None = None) -> Draft:
    """The module ``plan`` gives, as a version of ``skill`` or of the current skill of the
    plan's command shape, else as a new skill with a name of its own. TemplateConflict
    when the new code could not answer a template the skill answered before; ValueError
    (or another exception of code generation) when the plan cannot become code."""
    shape = normalise_shape(plan.template)
    joins = skill or skill_for_shape(engine, shape, plan.start_url)
    if joins is None:  # a partial skill is named for the part of the command it does
        name = unique_name(engine, plan.done_template if plan.lacks else plan.template)
        return Draft(plan, name, generate_module(plan, name), [plan.template], shape)
    try:
        templates = merge_templates(templates_of(joins), plan.template)
    except TemplateConflict as exc:
        raise TemplateConflict(f"it would be a version of {joins.name}, but {exc}") from exc
    code = generate_module(plan, joins.name)
    return Draft(plan, joins.name, code, templates, joins.shape, joins)


def write_skill(draft: Draft, settings: Settings, engine: Engine, *, current: bool = True) -> Skill:
    """Write the draft's module to the workspace and register it as a candidate version of
    its skill, current only if ``current``. The module is loaded before it is registered:
    one that does not load (its plan read back makes other code) leaves neither a row nor
    a file behind."""
    plan = draft.plan
    version = max((s.version for s in versions_of(engine, draft.name)), default=0) + 1
    settings.harvested_dir.mkdir(parents=True, exist_ok=True)
    path = settings.harvested_dir / f"{draft.name}_v{version}.py"
    path.write_text(draft.code, encoding="utf-8")
    kept = {
        "plan": plan_text(plan),
        "source": draft.code,
        "source_hash": source_hash(draft.code),
    }
    stored_path = to_store(path, settings.workspace)
    try:
        function = load_skill(
            Skill(name=draft.name, module_path=stored_path, shape=draft.shape, **kept),
            settings.workspace,
        )
    except Exception:
        path.unlink(missing_ok=True)
        raise
    skill = add_version(
        engine,
        Skill(
            name=draft.name,
            version=version,
            module_path=stored_path,
            **kept,
            shape=draft.shape,
            command_templates=json.dumps(draft.templates),
            signature=json.dumps(tool_schema(function)),
            docstring=function.__doc__ or "",
            example_args=json.dumps({p.name: p.example for p in plan.params}),
            start_url=plan.start_url,
            expected_end=_expected_end(plan),
            complete=plan.complete,
            selectors=json.dumps(
                [t.as_dict() for step in plan.steps for t in step.targets.values()]
            ),
            source_runs=json.dumps([plan.source]),
        ),
        current=current,
    )
    if skill.version != version:  # another harvest took that number meanwhile
        moved = path.rename(settings.harvested_dir / f"{draft.name}_v{skill.version}.py")
        skill = update_skill(engine, skill.id, module_path=to_store(moved, settings.workspace))
    return skill


def _expected_end(plan: SkillPlan) -> str:
    """Where a replay must end: the run's last page, unless the app named it by what it
    made (a new record's number), which every replay makes anew."""
    if not plan.end_url or made_by_the_app(relative(plan.end_url), plan.params):
        return ""
    return relative(plan.end_url)


def plan_from(
    source: Path,
    command: str | None = None,
    named: frozenset[str] = frozenset(),
    skipped: Mapping[int, str] | None = None,
) -> SkillPlan:
    """Read and plan one log (``command``: what it did, when the log does not say;
    ``named``: values kept as the names of fixed controls; ``skipped``: calls left out, see
    plan_skill); LogError or NotHarvestable say why not."""
    return without_tokens(plan_skill(read_log(source, command), named, skipped))


def remember(engine: Engine, key: SourceKey, result: HarvestResult) -> None:
    """Keep the outcome of harvesting a source, so that the next batch passes over it."""
    skill = result.skill
    remember_source(
        engine,
        HarvestedSource(
            key=key.key,
            run_id=key.run_id,
            path=key.path,
            outcome=result.outcome,
            detail=result.reason,
            skill_name=skill.name if skill else result.name,
            skill_version=skill.version if skill else None,
        ),
    )


def harvested_before(
    engine: Engine, source: Path, key: SourceKey, earlier_runs: dict[str, Skill]
) -> HarvestResult | None:
    """An "already harvested" result when ``key`` was harvested before (by this store's
    record of sources, or for a store made before it, as a skill's source run); None when
    it was not, or only failed (a failure is tried again)."""
    record = harvested_source(engine, key.key)
    if record is not None and record.outcome != FAILED:
        version = f" v{record.skill_version}" if record.skill_version else ""
        skill = f" ({record.skill_name}{version})" if record.skill_name else ""
        said = f"{record.outcome}{skill} on {record.harvested_at:%Y-%m-%d %H:%M}"
        return HarvestResult(str(source), outcome=ALREADY, name=record.skill_name, reason=said)
    made = earlier_runs.get(key.run_id) if key.run_id and record is None else None
    if made is not None:
        said = f"source of {made.name} v{made.version}"
        return HarvestResult(str(source), outcome=ALREADY, name=made.name, reason=said)
    return None


def _skipped(source: Path, exc: Exception) -> HarvestResult:
    """A source whose log holds no skill; the reason without the path the message has."""
    text = exc.problem if isinstance(exc, LogError) else str(exc)
    reason = text.removeprefix(f"{source}: ")
    return HarvestResult(
        str(source),
        error=f"{source}: {reason}",
        outcome=SKIPPED,
        reason=reason,
        unreadable=isinstance(exc, LogError),  # a file fixed, or a --command given, may read
    )


def _failed(source: Path, exc: Exception) -> HarvestResult:
    """A source whose harvesting raised: that source's error, not the batch's."""
    reason = f"{type(exc).__name__}: {exc}"
    return HarvestResult(
        str(source), error=f"{source}: harvesting failed: {reason}", outcome=FAILED, reason=reason
    )


async def harvest_one(
    source: Path,
    settings: Settings,
    engine: Engine,
    *,
    dry_run: bool = False,
    verify: bool = True,
    browser: Browser | None = None,
    command: str | None = None,
) -> HarvestResult:
    """Harvest one log: a new skill, a new version, or (same code as the current version)
    the source recorded on it. Never raises for a bad log: it says so in the result. A
    skill whose element named by a value did its command only with the demonstration's
    value (not with others the site listed beside it) is retired, and the log harvested
    again with that element read as a fixed control the command names. The run's detours
    (a menu pointed at in vain, a link to the page itself) are left out; a skill not
    verified without them is harvested again with every call."""
    options = {"dry_run": dry_run, "verify": verify, "browser": browser}
    detours = _detours(source, command)  # left out first: the replays decide
    first = await _harvest_plan(source, command, frozenset(), settings, engine,
                                skipped=detours, **options)  # fmt: skip
    if first.named:
        first = await _again(first, source, command, frozenset(first.named), detours,
                             settings, engine, options)  # fmt: skip
    skipped = {**detours, **dict.fromkeys(first.refuted, ONLY_THE_EXAMPLE)}
    if first.refuted and not first.verified and _ends_alike(first, source, command, skipped):
        first = await _again(first, source, command, frozenset(first.named), skipped,
                             settings, engine, options)  # fmt: skip
    if detours and verify and not first.verified:  # not borne out: every call is taken
        first = await _again(first, source, command, frozenset(first.named), {},
                             settings, engine, options)  # fmt: skip
    return first


def _detours(source: Path, command: str | None) -> dict[int, str]:
    """The log's calls a skill need not take (see detours); none when it cannot be read
    (planning it says why)."""
    try:
        return run_detours(read_log(source, command).calls)
    except LogError:
        return {}


async def _again(
    first: HarvestResult,
    source: Path,
    command: str | None,
    named: frozenset[str],
    skipped: Mapping[int, str],
    settings: Settings,
    engine: Engine,
    options: dict[str, Any],
) -> HarvestResult:
    """The log harvested again as replays showed it should be (its ``named`` values kept as
    names of fixed controls, its ``skipped`` calls left out), the first skill retired; the
    first result when the log gives nothing the second time."""
    if first.skill is None or first.skill.id is None:
        return first
    update_skill(engine, first.skill.id, status="retired")
    again = await _harvest_plan(source, command, named, settings, engine, skipped=skipped,
                                **options)  # fmt: skip
    if again.error is not None:
        return first
    again.readings = [*first.readings, *again.readings]
    return again


async def _harvest_plan(
    source: Path,
    command: str | None,
    named: frozenset[str],
    settings: Settings,
    engine: Engine,
    *,
    dry_run: bool,
    verify: bool,
    browser: Browser | None,
    skipped: Mapping[int, str] | None = None,
) -> HarvestResult:
    """Plan, write and verify one log's skill (see harvest_one)."""
    try:
        draft = draft_skill(plan_from(source, command, named, skipped), engine)
    except (LogError, NotHarvestable, TemplateConflict) as exc:
        return _skipped(source, exc)
    except Exception as exc:  # one source's surprise must not stop the batch
        return _failed(source, exc)
    same = draft.same_version(engine)
    outcome = UNCHANGED if same else NEW_VERSION if draft.joins else NEW_SKILL
    result = HarvestResult(
        str(source),
        code=draft.code,
        outcome=outcome,
        name=draft.name,
        dropped=[*draft.plan.dropped, *draft.plan.failed, *draft.plan.left_out],
    )
    if dry_run:
        return result
    try:
        if same is not None and same.id is not None:
            result.skill = add_source(engine, same.id, draft.plan.source, draft.templates)
            return result
        # a new version of a skill in use replaces it only once its replay passes (a
        # refused one is not in use: nothing of it runs)
        in_use = draft.joins is not None and module_source(draft.joins) is not None
        waits = outcome == NEW_VERSION and verify and in_use
        result.skill = write_skill(draft, settings, engine, current=not waits)
    except Exception as exc:  # writing or loading the module failed: nothing registered
        return _failed(source, exc)
    speculated = {
        n: step.speculated for n, step in enumerate(draft.plan.steps, 1) if step.speculated
    }
    result.readings = [f"step {n}: {reading} (not replayed)" for n, reading in speculated.items()]
    listed = {name: names for name, names in draft.plan.listed.items() if names}
    if verify:
        await _verify(result, settings, engine, browser, speculated, listed)
        examples = {p.name: p.example for p in draft.plan.params}
        result.named = [str(examples[n]) for n in result.named if n in examples]
        result.refuted = _refuted_fixed(draft.plan, result.refuted)
    if waits and result.verified and result.skill is not None and result.skill.id is not None:
        result.skill = earn_place(engine, result.skill, settings.candidate_uses)
    return result


async def _verify(
    result: HarvestResult,
    settings: Settings,
    engine: Engine,
    browser: Browser | None,
    speculated: dict[int, str],
    listed: dict[str, list[str]],
) -> None:
    """Replay the new skill at once: healthy when it reaches its end state, else candidate;
    the replay is the first outcome in its health window. It bears out or refutes each
    ``speculated`` reading, and replays with the ``listed`` values the site offered (see
    replay), as ``result.readings`` say."""
    skill = result.skill
    if skill is None or skill.id is None:
        return
    try:
        pace, again = recorded_pace(engine, skill), relogin(Store.of(engine))
        healthy = current_skills(engine, "healthy")
        outcome = await replay(
            skill,
            settings,
            browser,
            pace=pace,
            relogin=again,
            candidates=healthy,
            speculated=speculated,
            listed=listed,
        )
        passed, error, made_by = outcome.passed, outcome.error, outcome.made_by
        result.readings = [_borne(n, reading, outcome) for n, reading in speculated.items()]
        result.readings += [_listed(name, outcome) for name in listed]
        result.named = list(outcome.only_example)
        fresh_failed = not passed and outcome.fresh_tried and outcome.step in speculated
        result.refuted = [outcome.step] if fresh_failed and outcome.step else []
        kind = OK if passed else outcome.kind or BROKEN
        if not waits_for_secret(error):  # one that waited for a secret judged nothing
            keep_check(engine, skill, passed, outcome.findings())  # the skill's first check
    except Exception as exc:  # the replay could not run: the skill stays unverified
        passed, error = False, f"the replay could not run: {type(exc).__name__}: {exc}"
        made_by = None
        kind = LATE
    result.verified, result.verify_error = passed, error
    result.verified_on = made_by if passed else None
    status = "healthy" if passed else "candidate"
    result.skill = update_skill(engine, skill.id, status=status, last_error=error)
    keep_outcome(engine, skill.id, VERIFICATION, kind, window=settings.health_window, error=error)


def _ends_alike(
    first: HarvestResult, source: Path, command: str | None, skipped: Mapping[int, str]
) -> bool:
    """Whether the log planned without the ``skipped`` calls still ends where the first
    skill ends, every action after them kept: a step only the example needed is left out,
    never one that does part of the command (the result a search was asked to open)."""
    try:
        plan = plan_from(source, command, frozenset(first.named), skipped)
    except (LogError, NotHarvestable):
        return False
    skill = first.skill
    return (
        skill is not None
        and plan.complete == skill.complete
        and _expected_end(plan) == (skill.expected_end or "")
        and bool(_expected_end(plan))
    )


def _refuted_fixed(plan: SkillPlan, steps: list[int]) -> list[int]:
    """The log's calls of the ``steps`` (counted from 1) read as fixed controls of the
    site, a name the command gives aside: those a refuting replay may do without."""
    calls = []
    for number in steps:
        step = plan.steps[number - 1] if 0 < number <= len(plan.steps) else None
        by_value = step is not None and any(
            isinstance(v, ByRoleName | NthOfRole) for v in step.arguments.values()
        )
        if step is not None and step.speculated and not by_value and step.call >= 0:
            calls.append(step.call)
    return calls


def _borne(step: int, reading: str, outcome: Replay) -> str:
    """What the verifying replay made of a speculated step's reading, in one line."""
    if outcome.passed:
        on = "fresh values" if outcome.fresh else "the example's values (none fresh to try)"
        return f"step {step}: {reading}: borne out by a replay on {on}"
    if outcome.step == step:
        return f"step {step}: {reading}: refuted ({outcome.error})"
    return f"step {step}: {reading}: not borne out (the replay failed: {outcome.error})"


def _listed(name: str, outcome: Replay) -> str:
    """What the verifying replay made of a parameter replayed with a value the site listed."""
    used = (outcome.arguments or {}).get(name)
    if outcome.passed and outcome.fresh:
        return f"{name}: a value the site listed ({used!r}) did the command too"
    if name in outcome.only_example:
        return (
            f"{name}: refuted as a choice among what the site listed ({outcome.error}); "
            "read as a control the command names"
        )
    if outcome.only_example:
        return f"{name}: a value the site listed did the command when changed alone"
    return f"{name}: values the site listed did not do the command ({outcome.error})"


async def harvest(
    sources: list[Path],
    settings: Settings,
    engine: Engine,
    *,
    dry_run: bool = False,
    verify: bool = True,
    browser: Browser | None = None,
    again: bool = False,
    command: str | None = None,
    on_source: Callable[[Path], None] | None = None,
) -> list[HarvestResult]:
    """Harvest every log in ``sources`` not harvested before (all of them with ``again``);
    verify each new skill or version by replaying it at once. A dry run previews every
    source, noting in ``earlier`` those a harvest would pass over, and writes and
    remembers nothing. ``on_source`` hears of each source as it is taken up (progress)."""
    earlier_runs = {} if again else skill_source_runs(engine)
    results = []
    for source in sources:
        if on_source is not None:
            on_source(source)
        key = source_key(source, settings)
        done = None
        if key is not None and not again:
            done = harvested_before(engine, source, key, earlier_runs)
        if done is not None and not dry_run:
            results.append(done)
            continue
        result = await harvest_one(
            source,
            settings,
            engine,
            dry_run=dry_run,
            verify=verify,
            browser=browser,
            command=command,
        )
        if done is not None:
            result.earlier = done.reason
        if key is not None and not dry_run and not result.unreadable:
            remember(engine, key, result)
        results.append(result)
    return results


def same_modules(results: list[HarvestResult]) -> list[list[HarvestResult]]:
    """Results with code, grouped by skill name and what the module does (in the order
    first seen): many runs of one command give one module, shown once."""
    groups: dict[tuple[str | None, str], list[HarvestResult]] = {}
    for result in results:
        if result.code is None:
            continue
        try:
            fingerprint = module_fingerprint(result.code)
        except SyntaxError:
            fingerprint = result.code
        groups.setdefault((result.name, fingerprint), []).append(result)
    return list(groups.values())
