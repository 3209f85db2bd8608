"""A skill's health over a window of its runs and validations: a late failure leaves it
healthy, a broken one retires it (the planner takes over), late outcomes more than once
put it on watch, and it routes only from the site it was learnt on.

Real Chromium, the real demo shop (slowed down, or redesigned) and a real SQLite store."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.browser.session import browser_session
from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.errors import ActionError, BrowserError
from browser_agent.failure_kinds import BROKEN, LATE, NOT_APPLICABLE, SkillLate, classify
from browser_agent.planner.router import route
from browser_agent.planner.skill_call import call_skill
from browser_agent.settings import Settings
from browser_agent.skills.runtime import SkillNotApplicable, SkillStale
from browser_agent.skills.stored import load_skill
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.health import (
    BROKEN_STATE,
    HEALTHY,
    OK,
    WATCH,
    Outcome,
    health_of,
    keep_outcome,
    outcomes_of,
    state_of,
)
from browser_agent.store.skill_use import current_skills
from tests.skill_workspaces import SEARCH, clone_workspace, harvest_commands, workspace_settings

COMMAND = "search for boots and sort by price low to high"


def test_the_state_reads_the_window() -> None:
    def outcomes(*kinds: str) -> list[Outcome]:
        return [Outcome("run", kind) for kind in kinds]

    assert state_of("healthy", []) == HEALTHY
    assert state_of("healthy", outcomes(OK, LATE, NOT_APPLICABLE, NOT_APPLICABLE)) == HEALTHY
    assert state_of("healthy", outcomes(OK, LATE, OK, LATE)) == WATCH  # late, again
    assert state_of("healthy", outcomes(OK, BROKEN)) == WATCH  # broken, since passed again
    assert state_of("stale", outcomes(OK)) == BROKEN_STATE
    assert state_of("retired", []) == BROKEN_STATE


def test_each_failure_has_its_kind() -> None:
    assert classify(SkillLate("late", step=2)) == LATE
    assert classify(ActionError("Timeout 5000ms exceeded.", kind="timeout")) == LATE
    assert classify(BrowserError("the browser closed")) == LATE
    assert classify(SkillNotApplicable("no such size", step=3)) == NOT_APPLICABLE
    assert classify(SkillStale("no visible element matches #sort", step=3, selector="#sort")) == (
        BROKEN
    )
    assert classify(ActionError("2 elements match", kind="ambiguous")) == BROKEN


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("health") / "workspace")
    await harvest_commands([SEARCH], settings, browser, demo)
    return settings


@pytest.fixture
def workspace(harvested: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(harvested, tmp_path / "workspace")


async def routed_call(settings: Settings, browser: Browser, demo: DemoSite) -> str:
    """Route COMMAND from the demo shop and call the skill as a run does; its kind."""
    store = Store.of(open_store(settings))
    found = route(COMMAND, current_skills(store), demo.url)
    assert found is not None, "the command did not route"
    function = load_skill(found.skill)
    async with browser_session(settings, browser):
        outcome = await call_skill(store, found.skill, function, dict(found.arguments))
    return outcome.kind


def skills_cli(settings: Settings, *args: str) -> str:
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "300"}
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.output


def the_skill(settings: Settings):  # type: ignore[no-untyped-def]
    (skill,) = current_skills(Store.of(open_store(settings)))
    return skill


async def test_a_late_failure_leaves_the_skill_healthy_and_a_broken_one_retires_it(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    slow = workspace.with_overrides(navigation_timeout_ms=1_000, effect_timeout_ms=300)
    demo.latency_ms = 3_000  # every page comes after the page's own timeout
    try:
        assert await routed_call(slow, browser, demo) == LATE
        assert await routed_call(slow, browser, demo) == LATE
    finally:
        demo.latency_ms = 0
    skill = the_skill(workspace)
    assert (skill.status, skill.failures) == ("healthy", 0)  # not counted against it
    health = health_of(open_store(workspace), skill, workspace.health_window)
    assert health.state == WATCH  # late twice: still routed, but watched
    assert [o.kind for o in health.failures()] == [LATE, LATE]
    assert route(COMMAND, [skill], demo.url) is not None
    shown = skills_cli(workspace, "skills", "show", skill.name)
    assert "health: watch (2 late, 1 ok of the last 20)" in shown  # 1: its verification
    assert re.search(r"^  \S+ \S+ run late: Could not open .*Timeout", shown, re.M), shown
    (listed,) = json.loads(skills_cli(workspace, "skills", "--json"))["skills"]
    assert listed["health"]["state"] == WATCH and listed["health"]["counts"] == {LATE: 2, OK: 1}
    assert [f["kind"] for f in listed["health"]["last_failures"]] == [LATE, LATE]

    assert await routed_call(workspace, browser, demo) == OK  # the site is quick again

    demo.variant = "redesign"  # the sort box is another control now
    assert await routed_call(workspace, browser, demo) == BROKEN
    skill = the_skill(workspace)
    assert skill.status == "stale"
    assert health_of(open_store(workspace), skill, workspace.health_window).state == BROKEN_STATE
    assert route(COMMAND, [skill], demo.url) is None  # the planner takes over


def test_a_skill_routes_only_from_the_site_it_was_learnt_on(
    workspace: Settings, demo: DemoSite
) -> None:
    skills = current_skills(Store.of(open_store(workspace)))
    assert route(COMMAND, skills, demo.url) is not None
    assert route(COMMAND, skills, None) is not None  # no start page: its own
    assert route(COMMAND, skills, "notaurl") is None
    assert route(COMMAND, skills, "http://127.0.0.1:1/") is None


def test_the_window_keeps_the_newest_outcomes(workspace: Settings) -> None:
    engine = open_store(workspace)
    skill = the_skill(workspace)
    for n in range(7):
        keep_outcome(engine, skill.id, "run", OK if n % 2 else LATE, window=5, step=n)
    kept = outcomes_of(engine, [skill.id])[skill.id]
    assert [o.step for o in kept] == [6, 5, 4, 3, 2]  # newest first, five of them
