"""The harvest job: logs in, verified skill modules and store rows out.

One bad log never stops a batch: each source gets its own HarvestResult.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.harvest.codegen import generate_module, skill_name
from browser_agent.harvest.loader import load_skill
from browser_agent.harvest.logs import LogError, read_log
from browser_agent.harvest.plan import NotHarvestable, SkillPlan, plan_skill
from browser_agent.harvest.replay import relative, replay
from browser_agent.settings import Settings
from browser_agent.store.models import Skill
from browser_agent.store.skills import add_version, name_taken, normalise_shape, update_skill
from browser_agent.tools import tool_schema


@dataclass
class HarvestResult:
    """What harvesting one log gave: a skill (with its source) or the reason there is none."""

    source: str
    skill: Skill | None = None
    code: str | None = None
    error: str | None = None
    verified: bool | None = None
    verify_error: str | None = None


def unique_name(engine: Engine, template: str) -> str:
    """A snake_case name not used by another command shape."""
    base = skill_name(template)
    shape = normalise_shape(template)
    name, n = base, 2
    while name_taken(engine, name, shape):
        name, n = f"{base}_{n}", n + 1
    return name


def write_skill(
    plan: SkillPlan,
    settings: Settings,
    engine: Engine,
    *,
    name: str | None = None,
    current: bool = True,
) -> tuple[Skill, str]:
    """Generate the module, write it to the workspace and register it as a candidate;
    ``name`` makes it a new version of that skill, current only if ``current``."""
    name = name or unique_name(engine, plan.template)
    code = generate_module(plan, name)
    skill = add_version(
        engine,
        Skill(
            name=name,
            module_path="",
            shape=normalise_shape(plan.template),
            command_templates=json.dumps([plan.template]),
            example_args=json.dumps({p.name: p.example for p in plan.params}),
            start_url=plan.start_url,
            expected_end=relative(plan.end_url) if plan.end_url else "",
            complete=plan.complete,
            selectors=json.dumps(
                [t.as_dict() for step in plan.steps for t in step.targets.values()]
            ),
            source_runs=json.dumps([plan.source]),
        ),
        current=current,
    )
    settings.harvested_dir.mkdir(parents=True, exist_ok=True)
    path = settings.harvested_dir / f"{name}_v{skill.version}.py"
    path.write_text(code, encoding="utf-8")
    skill = update_skill(engine, skill.id, module_path=str(path))
    function = load_skill(skill)
    skill = update_skill(
        engine,
        skill.id,
        signature=json.dumps(tool_schema(function)),
        docstring=function.__doc__ or "",
    )
    return skill, code


def plan_from(source: Path) -> SkillPlan:
    """Read and plan one log; LogError or NotHarvestable say why not."""
    return plan_skill(read_log(source))


async def harvest(
    sources: list[Path],
    settings: Settings,
    engine: Engine,
    *,
    dry_run: bool = False,
    verify: bool = True,
    browser: Browser | None = None,
) -> list[HarvestResult]:
    """Harvest every log in ``sources``; verify each new skill by replaying it at once."""
    results = []
    for source in sources:
        try:
            plan = plan_from(source)
        except (LogError, NotHarvestable) as exc:
            results.append(HarvestResult(str(source), error=str(exc)))
            continue
        if dry_run:
            code = generate_module(plan, unique_name(engine, plan.template))
            results.append(HarvestResult(str(source), code=code))
            continue
        skill, code = write_skill(plan, settings, engine)
        result = HarvestResult(str(source), skill=skill, code=code)
        if verify:
            outcome = await replay(skill, settings, browser)
            result.verified = outcome.passed
            result.verify_error = outcome.error
            status = "healthy" if outcome.passed else "candidate"
            result.skill = update_skill(engine, skill.id, status=status, last_error=outcome.error)
        results.append(result)
    return results
