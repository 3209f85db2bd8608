"""Workspaces with harvested skills for the validation tests: harvested once per module on
the normal demo shop, then cloned for each test that changes them."""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings, load_settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store

# Replays wait this long for an element: enough for four at once on a slow machine.
ACTION_TIMEOUT_MS = 4_000
# A replay meant to go stale waits this long for the element that is gone (twice a skill:
# on fresh values, then on its example's); the skills' elements that are there are on
# their pages once loaded, so those found are found at once.
STALE_TIMEOUT_MS = 1_500

SEARCH = ("search for trail shoes and sort by price low to high", "/")
ADD_TO_CART = ("add Road Glide 5 in size 44, quantity 2 to the cart", "/")
OPEN_PRODUCT = ("open Trail Blazer 2", "/")
ACCEPT_COOKIES = ("accept the cookies", "/deals")
LOG_IN = ("log in as demo with password secret123", "/login")


def workspace_settings(workspace: Path) -> Settings:
    return load_settings().with_overrides(
        workspace=workspace, action_timeout_ms=ACTION_TIMEOUT_MS, navigation_timeout_ms=10_000
    )


def expecting_stale(settings: Settings) -> Settings:
    """``settings`` for replays where finding an element is meant to fail: a shorter wait."""
    return settings.with_overrides(action_timeout_ms=STALE_TIMEOUT_MS)


async def run_offline(
    command: str, start: str, settings: Settings, engine: Engine, browser: Browser, demo: DemoSite
) -> RunResult:
    """One command through the offline planner (or a skill the router picks)."""
    return await run_command(
        command,
        OfflinePlanner(),
        settings,
        start_url=f"{demo.url}{start}",
        browser=browser,
        engine=engine,
    )


async def harvest_commands(
    commands: list[tuple[str, str]],
    settings: Settings,
    browser: Browser,
    demo: DemoSite,
) -> None:
    """Run each command on the demo shop as it is and harvest (and verify) a skill from it."""
    engine = open_store(settings)
    for command, start in commands:
        run = await run_offline(command, start, settings, engine, browser, demo)
        assert run.status == "succeeded", run.answer
        (result,) = await harvest([Path(run.log_path)], settings, engine, browser=browser)
        assert result.skill is not None, result.error


def clone_workspace(source: Settings, target: Path) -> Settings:
    """A copy of a workspace (its store keeps paths relative to it: nothing to rewrite)."""
    Store.of(open_store(source)).forget_old_versions()
    shutil.copytree(source.workspace, target)
    return workspace_settings(target)
