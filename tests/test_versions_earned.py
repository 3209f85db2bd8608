"""A new version earns its place: harvesting what the current version already does makes
no version, and a new version of a skill in use stays a candidate (never routed) until
its verifying replay and ``candidate_uses`` validations passed; the previous version
stays, and ``skills rollback`` makes it current again.

Real Chromium, the real demo shop and a real SQLite store; the offline planner solves."""

from __future__ import annotations

from pathlib import Path

import pytest_asyncio
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import NEW_SKILL, NEW_VERSION, UNCHANGED, harvest
from browser_agent.planner.router import route
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import runs_of, skill_by_name, versions_of
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import run_offline, workspace_settings

SKILL = "open_link_name"
# Products the shop's home page links to: the planner opens each the same way.
FEATURED = ["Trail Blazer 2", "Road Glide 5", "Daily Trainer", "Tempo Flash", "Road Glide 5"]


async def solved(command: str, settings: Settings, browser: Browser, demo: DemoSite) -> Path:
    """The log of ``command`` solved by the planner (no skill routed)."""
    planner_only = settings.with_overrides(use_skills=False)
    run = await run_offline(command, "/", planner_only, open_store(settings), browser, demo)
    assert run.status == "succeeded", run.answer
    return Path(run.log_path)


@pytest_asyncio.fixture(loop_scope="session")
async def five_harvests(tmp_path: Path, browser: Browser, demo: DemoSite) -> Settings:
    settings = workspace_settings(tmp_path / "workspace").with_overrides(candidate_uses=2)
    engine = open_store(settings)
    outcomes = []
    for product in FEATURED:
        log = await solved(f"open {product}", settings, browser, demo)
        (result,) = await harvest([log], settings, engine, browser=browser)
        outcomes.append(result.outcome)
    assert outcomes == [NEW_SKILL, UNCHANGED, UNCHANGED, UNCHANGED, UNCHANGED]
    return settings


async def test_five_harvests_of_one_task_give_one_version(five_harvests: Settings) -> None:
    engine = open_store(five_harvests)
    (only,) = versions_of(engine, SKILL)
    assert (only.version, only.current, only.status) == (1, True, "healthy")
    assert len(runs_of(only)) == 5  # every source recorded on it


def routed_version(settings: Settings, demo: DemoSite) -> int:
    found = route("open Tempo Flash", current_skills(Store.of(open_store(settings))), demo.url)
    assert found is not None
    return found.skill.version


async def test_a_candidate_is_not_routed_until_it_passed_and_the_previous_one_stays(
    five_harvests: Settings, browser: Browser, demo: DemoSite
) -> None:
    settings, engine = five_harvests, open_store(five_harvests)
    # a product the home page does not show: the planner searches first, other steps
    log = await solved("open River Sandal", settings, browser, demo)
    (result,) = await harvest([log], settings, engine, browser=browser)
    assert (result.outcome, result.verified) == (NEW_VERSION, True)
    assert [(v.version, v.current, v.status) for v in versions_of(engine, SKILL)] == [
        (1, True, "healthy"),
        (2, False, "candidate"),  # verified, but v1 is in use: it must pass 2 more replays
    ]
    assert routed_version(settings, demo) == 1

    report = await run_validation(settings, [SKILL], browser=browser)
    (checked,) = report.checked
    assert checked.candidate is not None
    assert (checked.candidate["passes"], checked.candidate["current"]) == (1, False)
    assert routed_version(settings, demo) == 1

    report = await run_validation(settings, [SKILL], browser=browser)
    assert report.checked[0].candidate["current"] is True  # type: ignore[index]
    assert routed_version(settings, demo) == 2
    assert [v.current for v in versions_of(engine, SKILL)] == [False, True]

    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    result = CliRunner().invoke(app, ["skills", "rollback", SKILL], env=env)
    assert result.exit_code == 0, result.output
    assert "v1 is current again (v2 kept)" in result.output
    assert routed_version(settings, demo) == 1
    assert [v.current for v in versions_of(engine, SKILL)] == [True, False]

    result = CliRunner().invoke(app, ["skills", "rollback", SKILL], env=env)
    assert result.exit_code == 2 and "has no version before v1" in result.output
    assert skill_by_name(engine, SKILL).version == 1  # type: ignore[union-attr]
