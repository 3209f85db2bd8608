"""The demo tour: a planner run on the demo shop, harvesting it, and a second command of
the same shape carried out by the harvested skill."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.llm.types import LLMClient
    from browser_agent.planner.agent import RunResult
    from browser_agent.settings import Settings
    from browser_agent.store.rows import StepRow

FIRST_COMMAND = "search for trail shoes and sort by price low to high"
SECOND_COMMAND = "search for sandals and sort by customer rating"


@dataclass
class Tour:
    """Both runs and what harvesting the first one gave."""

    site_url: str
    first: RunResult
    harvested: list[HarvestResult]
    second: RunResult | None


async def tour(
    llm: LLMClient,
    settings: Settings,
    first_command: str = FIRST_COMMAND,
    second_command: str = SECOND_COMMAND,
    on_step: Callable[[StepRow], None] | None = None,
    on_stage: Callable[[str], None] = lambda _text: None,
) -> Tour:
    """Run, harvest, run again; one browser and one demo shop for the whole tour."""
    # the browser, store and harvester load when the tour runs, not when the CLI starts
    from browser_agent.browser.session import launched_browser
    from browser_agent.demo_site import start_demo_site
    from browser_agent.harvest.harvester import harvest
    from browser_agent.planner.agent import run_command
    from browser_agent.store.db import open_store

    engine = open_store(settings)
    with start_demo_site(port=0) as site:
        start = f"{site.url}/"
        async with launched_browser(settings) as browser:
            run = partial(
                run_command,
                llm=llm,
                settings=settings,
                start_url=start,
                browser=browser,
                engine=engine,
                on_step=on_step,
            )
            on_stage(f"1. The planner ({llm.name}) carries out: {first_command}")
            first = await run(first_command)
            if first.status != "succeeded":
                return Tour(start, first, [], None)
            on_stage("2. Harvesting the run into a skill, and verifying it")
            harvested = await harvest([Path(first.log_path)], settings, engine, browser=browser)
            on_stage(f"3. A command of the same shape: {second_command}")
            second = await run(second_command)
    return Tour(start, first, harvested, second)
