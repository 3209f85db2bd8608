"""The embedded planner as the planner tests use it: a command's tasks as it reads them,
and a run of it in the tests' browser."""

from __future__ import annotations

from playwright.async_api import Browser

from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.offline.command import make_plan
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings


def tasks_of(command: str) -> list:
    """The tasks the planner reads in ``command``, after opening the start page."""
    plan = make_plan(command, "http://site.test/")
    assert not plan.problem, plan.problem
    return plan.tasks[1:]


async def run(command: str, settings: Settings, browser: Browser, start_url: str) -> RunResult:
    """``command`` carried out by the embedded planner from ``start_url``."""
    return await run_command(
        command, OfflinePlanner(), settings, start_url=start_url, browser=browser
    )
