"""A workspace that moves keeps working: paths in the store are relative to it, and each
skill's plan and code are kept in the store (with its hash), so a moved or copied workspace, or a
worker with no shared folder, runs the same skill with no model call."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.skills.stored import SkillRefused, load_skill
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import update_skill
from browser_agent.validate.validator import run_validation


async def learnt_workspace(settings: Settings, browser: Browser, demo: DemoSite) -> None:
    """A workspace with one planner run harvested into a healthy skill."""
    engine = open_store(settings)
    first = await run_command(
        "search for trail shoes and sort by price low to high",
        OfflinePlanner(),
        settings,
        start_url=f"{demo.url}/",
        browser=browser,
        engine=engine,
    )
    assert first.status == "succeeded", first.answer
    (made,) = await harvest([Path(first.log_path)], settings, engine, browser=browser)
    assert made.verified, made.verify_error
    engine.dispose()


async def routed(settings: Settings, browser: Browser, demo: DemoSite) -> tuple[int, str]:
    """LLM calls and status of a command the skill should do alone."""
    result = await run_command(
        "search for sandals and sort by customer rating",
        OfflinePlanner(),
        settings,
        start_url=f"{demo.url}/",
        browser=browser,
        engine=open_store(settings),
    )
    return result.llm_calls, result.status


async def test_a_moved_workspace_still_routes_validates_and_harvests(
    store_url: str, settings: Settings, browser: Browser, demo: DemoSite, tmp_path: Path
) -> None:
    """On SQLite the store is a file in the workspace and moves with it; a PostgreSQL
    store stays where it is while the workspace's folders move."""
    shared = None if store_url.startswith("sqlite") else store_url
    settings = settings.with_overrides(workspace=tmp_path / "workspace", database_url=shared)
    await learnt_workspace(settings, browser, demo)
    engine = open_store(settings)
    (skill,) = current_skills(engine)
    assert not Path(skill.module_path).is_absolute() and skill.source and skill.source_hash
    with Session(engine) as db:
        assert all(not Path(run.log_path).is_absolute() for run in db.exec(select(Run)))
    engine.dispose()

    moved = settings.with_overrides(workspace=tmp_path / "elsewhere")
    shutil.move(settings.workspace, moved.workspace)
    assert await routed(moved, browser, demo) == (0, "succeeded")

    report = await run_validation(moved, all_skills=True, browser=browser)
    assert report.exit_code() == 0, [c.error for c in report.checked]
    again = await harvest(
        [moved.logs_dir / Path(p).name for p in sorted(moved.logs_dir.glob("*[0-9a-f].json"))],
        moved,
        open_store(moved),
        browser=browser,
        again=True,
    )
    assert again and all(r.outcome in ("unchanged", "skipped") for r in again), again


async def test_a_workspace_without_its_module_files_runs_the_code_kept_in_the_store(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    """As on a worker that shares only the store: no skills/harvested folder at all."""
    await learnt_workspace(settings, browser, demo)
    shutil.rmtree(settings.harvested_dir)
    assert await routed(settings, browser, demo) == (0, "succeeded")


async def test_code_changed_in_the_store_after_harvesting_is_not_run(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    await learnt_workspace(settings, browser, demo)
    engine = open_store(settings)
    (skill,) = current_skills(engine)
    tampered = update_skill(engine, skill.id, source=skill.source + "\nimport os\n")
    with pytest.raises(SkillRefused, match="not what its plan makes"):
        load_skill(tampered)
