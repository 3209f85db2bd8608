"""The primitives live in the package (``browser_agent.skills``): nothing named ``skills`` is
installed and a project's own ``skills`` package is never shadowed. Skills harvested by
release 0.1 (``from skills.primitive import ...``, code with no plan) are refused, nothing of
them imported, until their runs are harvested again."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from playwright.async_api import Browser
from setuptools.config.pyprojecttoml import read_configuration

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.settings import Settings, load_settings
from browser_agent.skills.replay import replay
from browser_agent.skills.stored import BEFORE_PLANS, SkillRefused, load_skill, refusal
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.skill_use import current_skills
from tests.skill_workspaces import SEARCH, harvest_commands, workspace_settings

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "tests" / "fixtures" / "store_release_0.1.sql"  # with its files beside it


def release_skill(tmp_path: Path) -> Skill:
    """The skill of release 0.1's store, upgraded in its workspace (which keeps its code in
    the store: ``from skills.primitive import ...``)."""
    workspace = tmp_path / "release"
    shutil.copytree(RELEASE.with_suffix(""), workspace)
    with sqlite3.connect(workspace / "browser_agent.db") as database:
        database.executescript(RELEASE.read_text(encoding="utf-8"))
    settings = load_settings().with_overrides(workspace=workspace, database_url=None)
    (skill,) = current_skills(open_store(settings))
    assert "from skills.primitive import" in skill.source
    assert "from browser_agent.harvest.runtime import" in skill.source
    return skill


def own_skills_package(folder: Path) -> Path:
    """A project folder with a ``skills`` package of its own (no ``primitive`` in it)."""
    package = folder / "skills"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('OWNER = "the project"\n', encoding="utf-8")
    return folder


def test_the_distribution_installs_no_top_level_skills_package() -> None:
    """setuptools' own reading of pyproject.toml: the packages that go into the wheel."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # [tool.setuptools] is "beta" in older setuptools
        config = read_configuration(ROOT / "pyproject.toml")
    packages = config["tool"]["setuptools"]["packages"]
    assert {name.split(".")[0] for name in packages} == {"browser_agent"}
    assert {"browser_agent.skills.primitive", "browser_agent.testing"} <= set(packages)


def test_a_release_skill_is_refused_and_nothing_of_it_is_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(own_skills_package(tmp_path)))
    monkeypatch.delitem(sys.modules, "skills", raising=False)
    skill = release_skill(tmp_path)

    assert refusal(skill) == BEFORE_PLANS
    with pytest.raises(SkillRefused, match="made before plans were kept"):
        load_skill(skill)
    assert "skills" not in sys.modules  # the old name was never registered for everyone
    import skills  # the project's own package, as it always was

    assert skills.OWNER == "the project"


async def test_a_release_skill_harvested_again_runs_on_the_shop(
    tmp_path: Path, settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    old = release_skill(tmp_path)
    workspace = settings.with_overrides(workspace=tmp_path / "release", database_url=None)
    refused = await replay(old, workspace, browser, start_url=f"{demo.url}/", secrets={})
    assert not refused.passed and refused.error == BEFORE_PLANS
    engine = open_store(workspace)
    logs = sorted(p for p in workspace.logs_dir.glob("*.json") if ".meta" not in p.name)
    made = await harvest(logs, workspace, engine, browser=browser, again=True)
    # (its verifying replay went to the shop's address of then: no longer served)
    assert [r.outcome for r in made].count("new version") == 1, made
    (skill,) = current_skills(engine)
    assert (skill.name, skill.version, refusal(skill)) == (old.name, 2, None) and skill.plan
    outcome = await replay(skill, workspace, browser, start_url=f"{demo.url}/", secrets={})
    assert outcome.passed, outcome.error


async def test_a_routed_command_runs_from_a_folder_with_its_own_skills_package(
    tmp_path: Path, browser: Browser, demo: DemoSite
) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    await harvest_commands([SEARCH], settings, browser, demo)
    (skill,) = current_skills(open_store(settings))
    assert "from browser_agent.skills.runtime import" in skill.source  # beside the primitives
    project = own_skills_package(tmp_path / "project")
    env = {
        **os.environ,
        "PYTHONPATH": str(project),  # the project's skills package is importable
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": str(settings.action_timeout_ms),
    }
    command = [
        Path(sys.executable).with_name("browser-agent"),
        "run",
        "search for sandals and sort by customer rating",
        "--url",
        f"{demo.url}/",
        "--model",
        "offline",
        "--json",
    ]
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["llm_calls"]) == ("succeeded", 0)  # the skill did it
    assert result["final_url"].endswith("/search?q=sandals&sort=rating")
