"""A model that asks for the same view of an unchanged page again is answered in a line
(the page's view can be thousands of tokens; a small local model asked for it three times
running), and a run with such an answer is still harvested as one whose view it had."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import run_command
from browser_agent.plans.plan_data import read_plan
from browser_agent.settings import Settings
from browser_agent.skills.primitive import SAME_VIEW
from browser_agent.store.db import open_store
from tests.scripted import Script, mmid


async def test_the_same_view_again_is_answered_in_a_line_and_the_run_is_harvested(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    look = ("get_dom", lambda _dom: {"content_type": "input_fields"})
    script = Script(
        [
            ("open_url", lambda _dom: {"url": demo.url}),
            look,
            look,  # the same page, the same view
            ("enter_text", lambda dom: {"selector": mmid("searchbox")(dom),
                                        "text": "trail shoes", "press_enter": True}),
            look,
            ("select_option", lambda dom: {"selector": mmid("combobox")(dom),
                                           "option": "Best seller"}),
        ],
        answer="Searched for trail shoes and sorted by best seller.",
    )  # fmt: skip
    engine = open_store(settings)
    run = await run_command(
        "find trail shoes in the shop and sort by best seller", FunctionClient(script),
        settings, start_url=demo.url, browser=browser, engine=engine,
    )  # fmt: skip
    assert run.status == "succeeded", run.answer
    log = json.loads(Path(run.log_path).read_text(encoding="utf-8"))
    views = [m["content"] for m in log if m.get("role") == "tool" and m["content"]]
    first, again = views[1], views[2]
    assert first.startswith("Page ") and len(first) > 500
    assert again == SAME_VIEW.format(name="get_dom")
    (made,) = await harvest([Path(run.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    # the box is kept as the view showed it: its place among its equals, for finding it again
    typed = next(s for s in read_plan(made.skill.plan).steps if s.primitive == "enter_text")
    assert typed.targets["selector"].context.get("index") == 0, typed.targets
