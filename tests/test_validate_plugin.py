"""The pytest plugin as a user runs it: a project of their own with pytest-playwright (the
sync plugin) installed and a test of theirs on its ``page`` fixture, and
``pytest -p browser_agent.testing --harvested-skills --base-url URL`` giving one test per
harvested skill beside it, with the screenshot and trace of a failing one kept."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.settings import Settings
from browser_agent.skills.replay import replay
from browser_agent.store.db import open_store
from browser_agent.store.skills import skill_by_name
from tests.skill_workspaces import (
    ACTION_TIMEOUT_MS,
    LOG_IN,
    OPEN_PRODUCT,
    SEARCH,
    STALE_TIMEOUT_MS,
    clone_workspace,
    harvest_commands,
    workspace_settings,
)

pytest_plugins = ["pytester"]

#: The user's own test, on pytest-playwright's sync ``page`` and pytest-base-url's base_url.
USER_TEST = """
def test_home_page(page, base_url):
    page.goto(base_url)
    assert page.title().endswith("Stride Shoes")
"""

#: Their conftest points pytest-playwright at the Chromium this machine has.
USER_CONFTEST = """
import pytest
from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, browser_type):
    executable = find_chromium(None, browser_type.executable_path)
    return {**browser_type_launch_args, "executable_path": executable, "args": LAUNCH_ARGS}
"""


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Node id -> PASSED, FAILED, SKIPPED or ERROR, from the ``-v`` lines."""
    found = re.findall(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR)", result.stdout.str(), re.M)
    return dict(found)


def collected(result: pytest.RunResult) -> list[str]:
    """The node ids a quiet ``--collect-only`` run lists, in order."""
    return re.findall(r"^(\S+::\S+)$", result.stdout.str(), re.M)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace with three skills harvested on the demo shop, once for the module."""
    settings = workspace_settings(tmp_path_factory.mktemp("harvested") / "workspace")
    await harvest_commands([SEARCH, OPEN_PRODUCT, LOG_IN], settings, browser, demo)
    return settings


@pytest.fixture
def skills_workspace(harvested: Settings, tmp_path: Path) -> Settings:
    """This test's copy of the workspace (made before pytester notes the loaded modules,
    which it unloads after the test)."""
    return clone_workspace(harvested, tmp_path / "workspace")


@pytest.fixture
def project(
    skills_workspace: Settings, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """A project with a test of its own, its skills in the workspace."""
    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(skills_workspace.workspace))
    monkeypatch.setenv("BROWSER_AGENT_ACTION_TIMEOUT_MS", str(ACTION_TIMEOUT_MS))
    monkeypatch.delenv("BROWSER_AGENT_SECRET_PASSWORD", raising=False)
    pytester.makepyfile(test_home=USER_TEST)
    pytester.makeconftest(USER_CONFTEST)
    return pytester


def skill_run(project: pytest.Pytester, demo: DemoSite, *args: str) -> pytest.RunResult:
    """pytest in the project, with the plugin, against the demo shop."""
    return project.runpytest_subprocess(
        "-v", "-p", "browser_agent.testing", "--base-url", demo.url, *args, timeout=300
    )


def skill_selection(project: pytest.Pytester, demo: DemoSite, *args: str) -> pytest.RunResult:
    """What pytest in the project would run with these arguments: selection happens at
    collection, so no browser is started."""
    return skill_run(project, demo, "--collect-only", "-qq", *args)  # -v -qq: one id a line


async def test_one_test_per_skill_beside_the_projects_own_tests(
    project: pytest.Pytester, demo: DemoSite
) -> None:
    result = skill_run(project, demo, "--harvested-skills")
    assert outcomes(result) == {
        "test_home.py::test_home_page[chromium]": "PASSED",
        "harvested-skills::search_sort": "PASSED",
        "harvested-skills::open_link_name": "PASSED",
        "harvested-skills::log_password": "SKIPPED",  # its password is not configured
    }
    assert result.ret == 0
    assert not (project.path / "test-results").exists()  # nothing kept when all pass

    # a node id printed by -v, pasted back, selects exactly its test
    users, *skills = outcomes(result)
    assert collected(skill_selection(project, demo, skills[-1])) == [skills[-1]]
    both = skill_selection(project, demo, users, skills[0])
    assert collected(both) == [users, skills[0]]
    unknown = skill_selection(project, demo, "harvested-skills::no_such_skill")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*not found: harvested-skills::no_such_skill*"])


async def test_a_skill_failing_on_the_redesign_keeps_its_screenshot_and_trace(
    project: pytest.Pytester, demo: DemoSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo.variant = "redesign"
    monkeypatch.setenv("BROWSER_AGENT_ACTION_TIMEOUT_MS", str(STALE_TIMEOUT_MS))
    result = skill_run(project, demo, "--harvested-skills", "--output", "artifacts")
    assert outcomes(result)["harvested-skills::search_sort"] == "FAILED"
    assert outcomes(result)["harvested-skills::open_link_name"] == "PASSED"
    stale = "search_sort v1: Step 2: no visible element matches #search-box"
    result.stdout.fnmatch_lines([f"*{stale}*"])
    kept = project.path / "artifacts" / "harvested-skills-search-sort"
    (screenshot,) = kept.glob("*.png")
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    with zipfile.ZipFile(kept / "trace.zip") as trace:  # a trace Playwright's viewer opens
        assert any(name.endswith(".trace") for name in trace.namelist())
    result.stdout.fnmatch_lines([f"*screenshot: {screenshot}*", f"*trace: {kept / 'trace.zip'}*"])
    assert result.ret == 1


async def test_skill_tests_only_when_asked_and_no_other_path_is_named(
    project: pytest.Pytester, demo: DemoSite
) -> None:
    unasked = skill_selection(project, demo)
    assert collected(unasked) == ["test_home.py::test_home_page[chromium]"]
    other_path = skill_selection(project, demo, "--harvested-skills", "test_home.py")
    assert collected(other_path) == ["test_home.py::test_home_page[chromium]"]
    chosen = skill_selection(project, demo, "--harvested-skills", "-k", "search_sort")
    assert collected(chosen) == ["harvested-skills::search_sort"]


def test_a_browser_that_does_not_start_fails_each_skill_test_in_one_line(
    project: pytest.Pytester, demo: DemoSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_BROWSER_ENDPOINT", "ws://127.0.0.1:9/")  # nobody there
    result = skill_run(project, demo, "harvested-skills")
    assert set(outcomes(result).values()) == {"FAILED"}
    result.stdout.fnmatch_lines(["Could not start the browser at ws://127.0.0.1:9/*"])
    assert "Traceback" not in result.stdout.str() and "def " not in result.stdout.str()


async def test_a_failed_replay_that_typed_a_secret_keeps_no_trace(
    skills_workspace: Settings, tmp_path: Path, browser: Browser
) -> None:
    """A trace holds every value typed: a skill typing a password keeps its screenshot only."""
    settings = skills_workspace  # the login harvested on the demo shop, among the others
    skill = skill_by_name(open_store(settings), "log_password")
    assert skill is not None
    wrong = "not-the-password-4711"
    kept = tmp_path / "kept"
    outcome = await replay(
        skill,
        settings,
        browser,
        secrets={"PASSWORD": wrong},
        screenshot_dir=kept,
        trace_path=kept / "trace.zip",
    )
    assert not outcome.passed and outcome.screenshot
    assert outcome.trace is None and [p.suffix for p in kept.iterdir()] == [".png"]
