"""Two skills running at once, each in its own task and browser context, keep their own
run state: the repairs one makes go to its own ``repairing()`` block, and what one decides
on its own (its notes) appears in its own answer only.

The pages are this suite's own (tests/pages), served on 127.0.0.1.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Browser

from browser_agent.browser.session import browser_session
from browser_agent.settings import Settings
from browser_agent.skills.primitive import enter_text, open_url
from browser_agent.skills.runtime import Repairs, Target, done, expect, find, repairing
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)

# Recorded by an id the page no longer has: healed by its role and name.
HEADING = Target(step=1, selector="#title", role="heading", name="Gamma", tag="h1")
# One of two links named Edit: the second, as recorded, which the skill notes.
SECTION_EDIT = Target(step=2, selector='role=link[name="Edit"s]', role="link", name="Edit", among=1)
NAME = Target(step=1, selector="#plain", role="textbox", name="Name")


async def test_two_runs_at_once_do_not_see_each_others_repairs_or_notes(
    pages: str,  # noqa: F811
    settings: Settings,
    browser: Browser,
) -> None:
    both_open, healed, answered = asyncio.Event(), asyncio.Event(), asyncio.Event()
    opened: list[str] = []

    async def ready(who: str) -> None:
        opened.append(who)
        if len(opened) == 2:
            both_open.set()
        await both_open.wait()  # both repairing() blocks are entered before either step

    async def healing_run() -> tuple[str, Repairs]:
        async with browser_session(settings, browser):
            with repairing() as repairs:
                await open_url(f"{pages}/two-edits.html")
                await ready("healing")
                await find(HEADING)
                await find(SECTION_EDIT)
                healed.set()
                await answered.wait()  # the other run answers while these notes are held
                return await done("Opened the section's editor."), repairs

    async def plain_run() -> tuple[str, Repairs]:
        async with browser_session(settings, browser):
            with repairing() as repairs:
                await open_url(f"{pages}/stubborn.html")
                await ready("plain")
                await healed.wait()
                said = await enter_text(selector=await find(NAME), text="Ada")
                await expect(NAME, said, value="Ada")
                answer = await done("Filled in the name.")
                answered.set()
                return answer, repairs

    (healing_answer, healing), (plain_answer, plain) = await asyncio.gather(
        healing_run(), plain_run()
    )
    assert [(r.step, r.recorded, r.how) for r in healing.done] == [
        (1, "#title", "its role and name")
    ]
    assert plain.done == []
    assert "2 visible links are named 'Edit'; step 2 used number 2" in healing_answer
    assert "Edit" not in plain_answer
    assert plain_answer.startswith("Filled in the name. Final page: ")
