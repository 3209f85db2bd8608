"""A harvested skill's first check and the runs routed to it, through the real command line
on a real workspace (the offline planner on the demo shop, a real Chromium): the harvest's
verifying replay is the skill's check by replay (its page, ``skills show`` and the listing
say when), and a run the skill did alone reads as the success ``runs`` lists, which
``harvest --all`` reports as done by that skill, with nothing to learn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.logs import read_log
from browser_agent.store.db import open_store
from browser_agent.store.models import Validation
from browser_agent.store.skill_use import current_skills
from browser_agent.testing.openai_server import LLMTestServer
from tests.skill_workspaces import OPEN_PRODUCT, harvest_commands, run_offline, workspace_settings
from tests.test_console import llm_server, serving, visiting

__all__ = ["llm_server"]  # the test model's server, a fixture of the console's tests


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def stored(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> dict[str, str]:
    """A workspace with a skill harvested (and verified) from one run, and a second run
    of the same shape routed to it."""
    settings = workspace_settings(tmp_path_factory.mktemp("routed") / "workspace")
    await harvest_commands([OPEN_PRODUCT], settings, browser, demo)
    engine = open_store(settings)
    routed = await run_offline("open Road Glide 5", "/", settings, engine, browser, demo)
    assert (routed.status, routed.llm_calls) == ("succeeded", 0)
    (skill,) = current_skills(engine)
    return {
        "workspace": str(settings.workspace),
        "routed": routed.run_id,
        "log": routed.log_path,
        "skill": skill.name,
    }


def cli(workspace: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``browser-agent ARGS`` in a process of its own, on ``workspace``."""
    return subprocess.run(
        [sys.executable, "-m", "browser_agent", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "BROWSER_AGENT_WORKSPACE": workspace, "COLUMNS": "200"},
    )


def test_a_run_the_skill_did_alone_is_reported_as_done_by_it(stored: dict[str, str]) -> None:
    listed = json.loads(cli(stored["workspace"], "runs", "--json").stdout)
    (row,) = [run for run in listed["runs"] if run["id"] == stored["routed"]]
    assert row["status"] == "succeeded"
    log = read_log(Path(stored["log"]))
    assert (log.succeeded, log.routed_to) == (True, stored["skill"])  # as runs lists it

    done = cli(stored["workspace"], "harvest", "--all", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    (routed,) = [r for r in results if Path(r["source"]).name == f"{stored['routed']}.json"]
    assert routed["reason"] == f"done by the skill {stored['skill']}: nothing to learn"
    assert "did not succeed" not in done.stdout


async def test_the_verifying_replay_is_the_skills_check_by_replay(
    stored: dict[str, str], browser: Browser, llm_server: LLMTestServer
) -> None:
    engine = open_store(workspace_settings(Path(stored["workspace"])))
    with Session(engine) as db:
        checks = db.exec(select(Validation).where(Validation.skill_name == stored["skill"])).all()
    assert [(check.version, check.passed) for check in checks] == [(1, True)]
    checked_at = f"{checks[0].checked_at:%Y-%m-%d %H:%M}"

    shown = cli(stored["workspace"], "skills", "show", stored["skill"]).stdout
    assert f"last checked by replay: {checked_at}" in shown
    listing = cli(stored["workspace"], "skills").stdout
    assert checked_at in listing  # the listing's validated column

    with serving(Path(stored["workspace"]), llm_server) as served:
        async with visiting(browser, served) as page:
            await page.goto(f"{served.origin}/skills/{stored['skill']}")
            history = page.locator("#history tbody tr")
            await expect(history).to_have_count(1)
            await expect(history.locator(".verdict")).to_have_text("healthy")
            await expect(page.get_by_text("Never checked by replay")).to_have_count(0)
