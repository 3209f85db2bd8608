"""The Python API as a user's script uses it: a command carried out on the demo shop with
``Agent.run_sync``, harvested, and the skill called from the script's own Playwright page
(a Chromium of its own) with fresh values; the shop's page shows them. A second command
of the shape is routed to the skill with ``await agent.run``; runs are read back."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page, async_playwright

from browser_agent import Agent, RunResult, Skill
from browser_agent.api import RunNotFound, SkillArgumentError, SkillFailed, SkillNotFound
from browser_agent.browser.chromium import find_chromium
from browser_agent.demo import FIRST_COMMAND, SECOND_COMMAND
from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.catalog import search
from browser_agent.errors import UserError
from browser_agent.settings import load_settings
from browser_agent.skills.stored import SkillRefused

CLI = str(Path(sys.executable).with_name("browser-agent"))


@pytest.fixture(scope="module")
def taught(demo: DemoSite, tmp_path_factory: pytest.TempPathFactory) -> tuple[Agent, RunResult]:
    """An agent whose workspace holds one planner run of the demo command, harvested."""
    workspace = tmp_path_factory.mktemp("api-workspace")
    agent = Agent(workspace=workspace, url=f"{demo.url}/", model="offline", headless=True)
    result = agent.run_sync(FIRST_COMMAND)
    assert result.status == "succeeded", result.answer
    assert result.llm_calls > 0
    harvested = agent.harvest_sync(result.run_id)
    assert [(h.skill, h.verified) for h in harvested] == [("search_sort", True)], harvested
    return agent, result


async def on_own_page(work: object) -> object:
    """``work(page)`` on a page of a Chromium this script launches itself."""
    executable = find_chromium(None, None, headless=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable)
        try:
            page = await browser.new_page()
            return await work(page)  # type: ignore[operator]
        finally:
            await browser.close()


def test_a_harvested_skill_runs_on_the_users_own_page_with_fresh_values(
    taught: tuple[Agent, RunResult],
) -> None:
    agent, _ = taught
    assert [s.name for s in agent.skills()] == ["search_sort"]
    skill = agent.skill("search_sort")
    assert isinstance(skill, Skill)
    assert [(p.name, p.type, p.required) for p in skill.parameters] == [
        ("search_term", "str", True),
        ("sort_by", "str", True),
        ("start_url", "str", False),
    ]

    async def shop(page: Page) -> tuple[str, str, str, str, list[str]]:
        said = await skill(page, search_term="sandals", sort_by="customer rating")
        return (
            said,
            page.url,
            await page.input_value("#search-box"),
            await page.input_value("#sort"),
            await page.eval_on_selector_all("li.result", "cards => cards.map(c => c.dataset.slug)"),
        )

    said, url, typed, sort, slugs = asyncio.run(on_own_page(shop))
    assert url.endswith("/search?q=sandals&sort=rating"), said
    assert url in said
    assert (typed, sort) == ("sandals", "rating")
    assert slugs == [product.slug for product in search("sandals", "rating")] and slugs
    assert agent.skills()[0].successes >= 1  # the use is counted as a routed one is


def test_a_bad_parameter_is_a_clear_error_before_any_step(
    taught: tuple[Agent, RunResult],
) -> None:
    agent, _ = taught
    skill = agent.skill("search_sort")
    wrong = [
        ({"search_term": "sandals", "sort_by": "rating", "colour": "red"}, "colour"),
        ({"search_term": "sandals"}, "sort_by"),
        ({"search_term": 42, "sort_by": "rating"}, "search_term"),
    ]

    async def call(page: Page) -> list[tuple[str, str, str]]:
        said = []
        for params, _name in wrong:
            with pytest.raises(SkillArgumentError) as raised:
                await skill(page, **params)
            said.append((raised.value.parameter, str(raised.value), page.url))
        return said

    said = asyncio.run(on_own_page(call))
    assert [parameter for parameter, _, _ in said] == [name for _, name in wrong]
    assert (
        "has no parameter 'colour'; its parameters: search_term, sort_by, start_url" in said[0][1]
    )
    assert "needs 'sort_by'" in said[1][1]
    assert "'search_term' must be str, not int (42)" in said[2][1]
    assert {url for _, _, url in said} == {"about:blank"}  # no step ran
    with pytest.raises(SkillNotFound, match="No skill 'nope'"):
        agent.skill("nope")


def test_a_skill_whose_stored_code_was_changed_is_refused(
    taught: tuple[Agent, RunResult], tmp_path: Path
) -> None:
    agent, _ = taught
    copy = tmp_path / "workspace"
    copy.mkdir()
    store = agent.settings.workspace / "browser_agent.db"
    with sqlite3.connect(store) as source, sqlite3.connect(copy / "browser_agent.db") as target:
        source.backup(target)
    with sqlite3.connect(copy / "browser_agent.db") as db:
        db.execute("UPDATE skill SET source = source || '\nprint(1)\n'")
    other = Agent(workspace=copy, model="offline")
    assert other.skills()[0].status == "refused"
    with pytest.raises(SkillRefused, match="not what its plan makes"):
        other.skill("search_sort")


def test_a_command_of_the_same_shape_is_routed_and_the_runs_read_back(
    taught: tuple[Agent, RunResult],
) -> None:
    agent, first = taught
    second = asyncio.run(agent.run(SECOND_COMMAND))
    assert (second.status, second.llm_calls, second.steps) == ("succeeded", 0, 1), second.answer
    listed = agent.runs(limit=5)
    assert [run.id for run in listed][:2] == [second.run_id, first.run_id]
    assert [run.id for run in agent.runs(status="failed")] == []
    # the filters of `browser-agent runs`: site, skill, start time, words
    host = urlsplit(first.final_url or "").netloc
    assert {run.id for run in agent.runs(site=host, since="1h")} == {first.run_id, second.run_id}
    assert [run.id for run in agent.runs(skill="search_sort")] == [second.run_id]
    assert [run.id for run in agent.runs(words=SECOND_COMMAND.split()[-1])] == [second.run_id]
    assert agent.runs(site="elsewhere.example", since="2026-01-01") == []
    with pytest.raises(UserError, match="^status 'done': a run's status is one of"):
        agent.runs(status="done")
    shown = agent.run_info(first.run_id[:-3])  # the unique start of an id will do
    assert (shown.id, shown.command, shown.status) == (first.run_id, FIRST_COMMAND, "succeeded")
    assert [step.index for step in shown.steps] == list(range(1, first.steps + 1))
    assert {"enter_text", "select_option"} <= {step.tool for step in shown.steps}
    assert Path(shown.log_path).is_file()
    with pytest.raises(RunNotFound, match="No run 'nothing'"):
        agent.run_info("nothing")


def test_the_command_line_shows_what_the_api_reads(taught: tuple[Agent, RunResult]) -> None:
    """`runs`, `show`, `skills` and `skills show` print the API's records: the same runs,
    costs, steps, log, skills, health, versions and code that runs."""
    agent, first = taught

    def printed(*args: str) -> dict:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("BROWSER_AGENT_")}
        clean["BROWSER_AGENT_WORKSPACE"] = str(agent.settings.workspace)
        done = subprocess.run([CLI, *args, "--json"], env=clean, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    listed = printed("runs", "--limit", "3")["runs"]
    read = agent.runs(limit=3)
    assert [(r["id"], r["steps"], r["cost_usd"]) for r in listed] == [
        (r.id, r.step_count, r.cost_usd) for r in read
    ]
    info = agent.run_info(first.run_id)
    shown = printed("show", first.run_id[:-3])
    assert (shown["run"]["id"], shown["log"]) == (info.id, info.log_path)
    assert [(s["index"], s["tool"]) for s in shown["steps"]] == [
        (s.index, s.tool) for s in info.steps
    ]
    (skill,) = agent.skills()
    (row,) = printed("skills")["skills"]
    assert (row["name"], row["health"]) == (skill.name, skill.health.as_json())
    assert skill.health.state == "healthy" and row["source_runs"] == [first.run_id]
    detail = agent.skill_info("search_sort")
    one = printed("skills", "show", "search_sort")
    assert one["versions"] == [{"version": 1, "status": detail.status}]
    assert one["source"] == detail.source and "async def search_sort" in (detail.source or "")
    assert agent.skills()[0].source is None  # listings leave the code out
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BROWSER_AGENT_")}
    clean["BROWSER_AGENT_WORKSPACE"] = str(agent.settings.workspace)
    missing = subprocess.run([CLI, "show", "nothing"], env=clean, capture_output=True, text=True)
    said = "Error: No run 'nothing': see browser-agent runs for the ids."
    assert (missing.returncode, missing.stderr.strip()) == (2, said)


def test_settings_come_from_the_environment_and_keywords(tmp_path: Path) -> None:
    agent = Agent(workspace=tmp_path, headless=False, action_timeout_ms=2_000)
    assert agent.settings.workspace == tmp_path and agent.settings.headed
    assert agent.settings.action_timeout_ms == 2_000
    assert agent.settings.llm_model == load_settings().llm_model
    with pytest.raises(TypeError, match="Not a setting: colour"):
        Agent(colour="red")
    with pytest.raises(ValueError, match="command is empty"):
        Agent(workspace=tmp_path).run_sync("  ")


def test_importing_the_package_loads_no_part_of_the_api() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, browser_agent; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "'browser_agent'" in loaded
    for heavy in ("browser_agent.api", "browser_agent.settings", "playwright", "pydantic"):
        assert f"'{heavy}'" not in loaded, heavy


def test_the_package_gives_every_name_of_the_api_and_the_run_result() -> None:
    """``browser_agent`` lists the API's names itself (importing the API is not cheap), so
    the two lists are held equal here: each name it gives is the API's own object."""
    import browser_agent
    import browser_agent.api
    from browser_agent.planner.agent import RunResult as PlannerRunResult

    assert set(browser_agent.__all__) == {*browser_agent.api.__all__, "RunResult"}
    for name in browser_agent.api.__all__:
        assert getattr(browser_agent, name) is getattr(browser_agent.api, name), name
    assert browser_agent.RunResult is PlannerRunResult
    with pytest.raises(AttributeError):
        browser_agent.NoSuchName  # noqa: B018


def test_a_skill_that_cannot_do_its_command_raises_saying_why(
    taught: tuple[Agent, RunResult],
) -> None:
    """Last in this file: the failure counts against the skill, as a routed one would."""
    agent, _ = taught
    skill = agent.skill("search_sort")

    async def call(page: Page) -> SkillFailed:
        with pytest.raises(SkillFailed) as raised:
            await skill(page, search_term="sandals", sort_by="colour of the laces")
        return raised.value

    failed = asyncio.run(on_own_page(call))
    assert "colour of the laces" in str(failed) and "search?q=sandals" in str(failed)
    assert (failed.kind, failed.unverified) == ("broken", False)
