"""Renewing a stale skill: a new version, current only once it passes validation.

First choice: the newest successful run of the skill's command shape made after the
skill, harvested under the skill's name; the new version answers every command template
the skill answered before, so a run of a narrower command never takes a route away, and
a run whose code the skill already has is passed over. Otherwise: the skill's own module with the
selectors that healing finds (at run time, kept on the skill, and in a healing replay
now), provided the healed replay still ends on the recorded page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.harvest.harvester import (
    NEW_VERSION,
    HarvestResult,
    draft_skill,
    plan_from,
    remember,
    write_skill,
)
from browser_agent.harvest.sources import source_key
from browser_agent.planner.templates import match_text
from browser_agent.settings import Settings
from browser_agent.skills.logins import relogin
from browser_agent.skills.replay import replay
from browser_agent.skills.replay_session import Replay, relative
from browser_agent.skills.run_state import Repairs
from browser_agent.skills.runtime import repairing
from browser_agent.store.connection import Store
from browser_agent.store.models import Run, Skill
from browser_agent.store.run_logs import log_file
from browser_agent.store.run_steps import succeeded_after
from browser_agent.store.skill_use import current_skills, loads, mark_stale
from browser_agent.store.skills import make_current, runs_of, update_skill, versions_of
from browser_agent.validate.healed import Healed, merge, stored_healed, write_healed_version
from browser_agent.validate.outcome import keep_replay, start_url_for


@dataclass
class Renewal:
    """A new version written for a stale skill; ``passed`` means it is now current."""

    version: int
    source: str  # "run <id>" or "healed selectors"
    passed: bool
    error: str | None = None


@dataclass
class Place:
    """Where validation replays: the browser, another base URL, where screenshots go, and
    the secrets typed where a skill names them."""

    browser: Browser
    base_url: str | None
    screenshot_dir: Path
    secrets: dict[str, str] = field(default_factory=dict)

    async def replay(
        self,
        skill: Skill,
        settings: Settings,
        engine: Engine,
        *,
        screenshots: bool = False,
        pace: float = 0.0,
        candidates: bool = False,
    ) -> Replay:
        """A replay of ``skill`` here, from the base address with these secrets, logging in
        again when its kept session expired; with ``candidates``, a healthy skill may first
        make the thing it needs (see skills.replay)."""
        return await replay(
            skill,
            settings,
            self.browser,
            start_url=start_url_for(skill, self.base_url),
            screenshot_dir=self.screenshot_dir if screenshots else None,
            secrets=self.secrets,
            pace=pace,
            relogin=relogin(Store.of(engine)),
            candidates=current_skills(engine, "healthy") if candidates else (),
        )


def newer_runs(engine: Engine, skill: Skill) -> list[Run]:
    """Successful runs made after ``skill`` whose command fits one of its templates,
    newest first."""
    templates = loads(skill.command_templates)
    kept = [t for t in templates if isinstance(t, str)] if isinstance(templates, list) else []
    return [
        run
        for run in succeeded_after(engine, skill.created_at)
        if run.log_path and any(match_text(run.command, t) is not None for t in kept)
    ]


def from_runs(skill: Skill, settings: Settings, engine: Engine) -> tuple[Skill, str] | None:
    """The newest harvestable newer run, harvested as a candidate version of ``skill`` that
    keeps every template the skill answered. Passed over: runs the skill itself did (not
    harvestable), runs an earlier version came from, runs whose code could not answer one
    of the skill's templates, and runs that give the code the skill already has."""
    used = {run for version in versions_of(engine, skill.name) for run in runs_of(version)}
    for run in newer_runs(engine, skill):
        if run.id in used:
            continue
        source = log_file(engine, run, settings.workspace)
        try:
            draft = draft_skill(plan_from(source), engine, skill=skill)
        except (ValueError, OSError):  # not harvestable, not readable, or no code for it
            continue
        if draft.unchanged:
            continue
        new = write_skill(draft, settings, engine, current=False)
        key = source_key(source, settings)
        if key is not None:
            made = HarvestResult(str(source), skill=new, outcome=NEW_VERSION, name=new.name)
            remember(engine, key, made)
        return new, f"run {run.id}"
    return None


async def healing_replay(
    skill: Skill, settings: Settings, engine: Engine, place: Place, renamed_only: bool = False
) -> tuple[Replay, Repairs, Healed]:
    """A replay of ``skill`` that heals its stale steps (``renamed_only``: only to controls
    relabelled, see skills.run_state.Repairs); the selectors healing found join those kept
    on the skill for its next version (all of them, returned)."""
    loose = Skill(
        name=skill.name,
        version=skill.version,
        module_path=skill.module_path,
        plan=skill.plan,
        source=skill.source,
        source_hash=skill.source_hash,
        shape=skill.shape,
        example_args=skill.example_args,
    )
    with repairing(renamed_only=renamed_only) as repairs:
        outcome = await place.replay(loose, settings, engine)
    healed = merge(stored_healed(skill), repairs.kept())
    update_skill(engine, skill.id, healed=json.dumps(healed))
    return outcome, repairs, healed


async def heals_in_place(skill: Skill, settings: Settings, engine: Engine, place: Place) -> str:
    """For a skill a replay just found stale: when a healing replay does its command with
    every broken step found again by its identity under another name (a control relabelled
    by another language), the skill stays routed, as after a run that healed so (see
    store.routability); what its verdict adds, "" when not."""
    outcome, repairs, healed = await healing_replay(skill, settings, engine, place, True)
    if not (outcome.passed and repairs.done):
        return ""
    error = skill.last_error or "stale"
    mark_stale(engine, skill.id, error, json.dumps(healed), healed_in_place=True)
    steps = ", ".join(str(step) for step in sorted({repair.step for repair in repairs.done}))
    return (
        f" A run finds step {steps} again by what it is, relabelled, and does the command: "
        "the skill stays routed until `validate --reharvest` writes the version naming it so."
    )


async def from_healing(
    skill: Skill, settings: Settings, engine: Engine, place: Place
) -> tuple[Skill, str] | None:
    """A candidate version with healed selectors, when a healing replay gets through every
    step and ends on the recorded page path (its query may differ: the redesigned site may
    name its parameters differently; on other values than the example's, the replay's end
    check compared it with the recorded one)."""
    outcome, repairs, healed = await healing_replay(skill, settings, engine, place)
    if not (outcome.passed and outcome.final_url and repairs.kept()):
        return None
    # passed on the site's other values, its end was compared with the recorded one's
    end = skill.expected_end if outcome.fresh else relative(outcome.final_url)
    if urlsplit(end).path != urlsplit(skill.expected_end).path:
        return None
    try:
        new = write_healed_version(skill, healed, end, settings, engine)
    except ValueError:
        return None
    return new, "healed selectors"


async def renew(skill: Skill, settings: Settings, engine: Engine, place: Place) -> Renewal | None:
    """Write the next version of a stale skill and validate it; it becomes current (and
    healthy) only if it passes. None when there is nothing to renew it from."""
    made = from_runs(skill, settings, engine) or await from_healing(skill, settings, engine, place)
    if made is None:
        return None
    new, source = made
    outcome = await place.replay(new, settings, engine, screenshots=True, candidates=True)
    keep_replay(engine, new, outcome, failed_status="candidate", window=settings.health_window)
    if outcome.passed:
        make_current(engine, new.id)
    return Renewal(new.version, source, outcome.passed, outcome.error)
