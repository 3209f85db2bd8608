"""Pages nobody here wrote: MiniWoB++ tasks end to end, scored by the pages themselves.

For each task the offline planner solves one instance, the run is harvested, and fresh
instances (other seeds: other labels, lists, paths and letter cases) run through the
skill with no model call. Success is the page's own raw reward of 1.0.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import session
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.testing.miniwob_site import MiniWobSite, read_instruction, start_miniwob_site

FRESH_SEEDS = (101, 102, 103)


@pytest.fixture(scope="module")
def miniwob() -> Iterator[MiniWobSite]:
    with start_miniwob_site() as site:
        yield site


async def play(
    site: MiniWobSite, task: str, seed: int, settings: Settings, browser: Browser, engine
) -> tuple[RunResult, float | None]:  # type: ignore[no-untyped-def]
    """One run on the seeded instance and the reward its page reported (None: none)."""
    episode = uuid.uuid4().hex[:12]
    url = site.task_url(task, seed, episode)
    command = await read_instruction(browser, url)
    result = await run_command(
        command, OfflinePlanner(), settings, start_url=url, browser=browser, engine=engine
    )
    for _ in range(40):
        reward = site.reward(episode)
        if reward is not None:
            return result, reward.raw
        await asyncio.sleep(0.05)
    return result, None


@pytest.mark.parametrize(
    "task",
    [
        "click-checkboxes-large",  # a list of labels: one list parameter, a loop
        "enter-text-2",  # letter case as a parameter
        "click-menu",  # a menu path: pointed at, then clicked
        "focus-text-2",  # a position: "the 3rd input textbox"
    ],
)
async def test_a_harvested_skill_solves_fresh_instances_without_the_model(
    task: str, miniwob: MiniWobSite, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    learnt, reward = await play(miniwob, task, 0, settings, browser, engine)
    assert reward == 1.0, learnt.answer
    assert learnt.llm_calls > 0
    (made,) = await harvest([Path(learnt.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    assert made.skill.complete
    for seed in FRESH_SEEDS:
        result, reward = await play(miniwob, task, seed, settings, browser, engine)
        assert (reward, result.llm_calls, result.steps) == (1.0, 0, 1), result.answer


async def test_a_password_the_instruction_gives_is_typed_from_its_placeholder(
    miniwob: MiniWobSite, settings: Settings, browser: Browser
) -> None:
    """The login task names its password in the instruction: the run keeps it out of its
    log as a secret's placeholder and still types it into the password field."""
    episode = uuid.uuid4().hex[:12]
    url = miniwob.task_url("login-user-popup", 0, episode)
    command = await read_instruction(browser, url)
    password = re.search(r'password "([^"]+)"', command)
    assert password, command
    result = await run_command(command, OfflinePlanner(), settings, start_url=url, browser=browser)
    for _ in range(40):
        if (reward := miniwob.reward(episode)) is not None:
            break
        await asyncio.sleep(0.05)
    assert reward is not None and reward.raw == 1.0, result.answer
    log = Path(result.log_path).read_text(encoding="utf-8")
    assert "{PASSWORD}" in log and password[1] not in log


class _FieldAtFinish:
    """The offline planner, noting what a field holds when the planner finishes."""

    name = "offline"

    def __init__(self, selector: str) -> None:
        self.planner, self.selector, self.value = OfflinePlanner(), selector, None

    async def complete(self, messages: list[dict], tools: list[dict]):  # type: ignore[no-untyped-def]
        reply = await self.planner.complete(messages, tools)
        if any(call.name == "finish" for call in reply.tool_calls):
            page = session().current_page()
            self.value = await page.locator(self.selector).input_value()
        return reply


@pytest.mark.parametrize("task", ["use-autocomplete", "use-autocomplete-nodelay"])
async def test_a_suggestion_that_fits_is_chosen_after_typing_its_start(
    task: str, miniwob: MiniWobSite, settings: Settings, browser: Browser
) -> None:
    url = miniwob.task_url(task, 0)
    command = await read_instruction(browser, url)
    assert command == 'Enter an item that starts with "Sa" and ends with "ino".'
    watcher = _FieldAtFinish("#tags")
    result = await run_command(command, watcher, settings, start_url=url, browser=browser)
    assert result.status == "succeeded", result.answer
    assert watcher.value == "San Marino"
