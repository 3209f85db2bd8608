"""The tests the browser_agent.testing plugin adds: one per current harvested skill."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import BrowserType, Page

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.browser.errors import ActionError, BrowserError
from browser_agent.browser.navigation_guard import guard_navigations
from browser_agent.browser.session import page_session
from browser_agent.harvest.loader import SkillLoadError, load_skill
from browser_agent.harvest.replay import example_arguments, lacking_secret, relative
from browser_agent.secrets import configured as configured_secrets
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.skills import current_skills
from browser_agent.validate.record import start_url_for


def skills_settings_of(config: pytest.Config) -> Settings:
    """The settings, with the workspace from --skills-workspace when given."""
    workspace = config.getoption("skills_workspace")
    chosen = Path(workspace).expanduser().resolve() if workspace else None
    return load_settings().with_overrides(workspace=chosen)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per current skill that is not retired, named after the skill."""
    if "harvested_skill" in metafunc.fixturenames:
        engine = open_store(skills_settings_of(metafunc.config))
        skills = [s for s in current_skills(engine) if s.status != "retired"]
        metafunc.parametrize("harvested_skill", skills, ids=[s.name for s in skills])


@pytest.fixture(scope="session")
def skills_settings(pytestconfig: pytest.Config) -> Settings:
    return skills_settings_of(pytestconfig)


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict, browser_type: BrowserType, skills_settings: Settings
) -> dict:
    """pytest-playwright's launch options, plus the flags a headless server needs and the
    system Chromium when Playwright's own download is missing (and no channel is asked)."""
    if browser_type.name != "chromium" or "channel" in browser_type_launch_args:
        return browser_type_launch_args
    options = {**browser_type_launch_args}
    options["args"] = [*options.get("args", []), *LAUNCH_ARGS]
    executable = find_chromium(skills_settings.chromium_path, browser_type.executable_path)
    if executable and "executable_path" not in options:
        options["executable_path"] = executable
    return options


@pytest.mark.asyncio(loop_scope="session")
async def test_harvested_skill(
    harvested_skill: Skill, page: Page, base_url: str | None, skills_settings: Settings
) -> None:
    """Replay the skill with its example arguments and check its recorded end state."""
    skill = harvested_skill
    secrets = configured_secrets()
    lacking = lacking_secret(skill, secrets)
    if lacking:
        pytest.skip(lacking)
    arguments = example_arguments(skill, start_url_for(skill, base_url))
    problem = await _replay(skill, arguments, page, skills_settings, secrets)
    if problem:
        pytest.fail(f"{skill.name} v{skill.version}: {problem}", pytrace=False)


async def _replay(
    skill: Skill, arguments: dict[str, str], page: Page, settings: Settings, secrets: dict[str, str]
) -> str:
    """Run the skill on ``page``; what went wrong, or an empty string when it reached its
    recorded end state."""
    try:
        function = load_skill(skill)
    except SkillLoadError as exc:
        return str(exc)
    with page_session(page, settings) as active:
        active.use_secrets(secrets)
        await guard_navigations(active)
        try:
            await function(**arguments)
        except (ActionError, BrowserError) as exc:
            return f"stale: {exc}"
        final = relative(active.current_page().url)
    return "" if final == skill.expected_end else f"ended on {final}, not {skill.expected_end}"
