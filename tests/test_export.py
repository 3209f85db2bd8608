"""A harvested skill exported as a plain Playwright script: run in a fresh Python process on
values the demonstration never used, it does the steps on the demo shop and prints where it
ended; the shop's own page, read by the test, shows the search and the sort asked for."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.browser.chromium import find_chromium
from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.catalog import search
from browser_agent.plans.export import CannotExport, exported_script, script_for
from browser_agent.plans.plan import PlannedStep
from browser_agent.plans.plan_data import read_plan
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.skills import skill_by_name
from tests.skill_workspaces import OPEN_PRODUCT, SEARCH, harvest_commands, workspace_settings

SEARCH_SKILL = "search_sort"
OPEN_SKILL = "open_link_name"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def workspace(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace holding the skills harvested from a search with a sort and from opening
    a product by its link."""
    settings = workspace_settings(tmp_path_factory.mktemp("export") / "workspace")
    await harvest_commands([SEARCH, OPEN_PRODUCT], settings, browser, demo)
    return settings


def exported(settings: Settings, name: str, folder: Path) -> Path:
    """The skill written by ``browser-agent skills export NAME -o FILE``."""
    path = folder / f"{name}.py"
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    done = CliRunner().invoke(app, ["skills", "export", name, "-o", str(path)], env=env)
    assert done.exit_code == 0, done.output
    return path


def run_script(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The script run as a person runs it: its own Python process, in its own folder."""
    chromium = ["--executable-path", str(find_chromium())] if find_chromium() else []
    return subprocess.run(
        [sys.executable, path.name, *options, *chromium],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )


def imported_modules(code: str) -> set[str]:
    tree = ast.parse(code)
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return names | {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


async def test_an_exported_search_runs_on_fresh_values_in_a_fresh_process(
    workspace: Settings, browser: Browser, demo: DemoSite, tmp_path: Path
) -> None:
    path = exported(workspace, SEARCH_SKILL, tmp_path)
    code = path.read_text(encoding="utf-8")
    assert imported_modules(code) == {"argparse", "asyncio", "playwright.async_api"}
    assert "--search-term" in code and "--sort-by" in code

    done = run_script(
        path,
        "--start-url",
        f"{demo.url}/",
        "--search-term",
        "running",
        "--sort-by",
        "price high to low",
    )
    assert done.returncode == 0, done.stderr
    final = done.stdout.strip().splitlines()[-1]
    address = urlsplit(final)
    assert (address.netloc, address.path) == (urlsplit(demo.url).netloc, "/search")
    assert parse_qs(address.query) == {"q": ["running"], "sort": ["price_desc"]}

    # the shop's page at that address: the products of its own search rule, dearest first
    page = await browser.new_page()
    try:
        await page.goto(final)
        shown = await page.locator("[data-testid=result]").evaluate_all(
            "cards => cards.map(c => c.dataset.slug)"
        )
        chosen = await page.locator("#sort").input_value()
    finally:
        await page.close()
    assert shown == [p.slug for p in search("running", "price_desc")] and len(shown) > 1
    assert chosen == "price_desc"


async def test_an_exported_link_takes_its_name_as_an_option(
    workspace: Settings, browser: Browser, demo: DemoSite, tmp_path: Path
) -> None:
    path = exported(workspace, OPEN_SKILL, tmp_path)
    assert "get_by_role('link', name=args.link_name, exact=True)" in path.read_text()
    done = run_script(path, "--start-url", f"{demo.url}/", "--link-name", "Road Glide 5")
    assert done.returncode == 0, done.stderr
    final = done.stdout.strip().splitlines()[-1]
    assert final == f"{demo.url}/product/road-glide-5"
    page = await browser.new_page()
    try:
        await page.goto(final)
        assert await page.locator("h1").inner_text() == "Road Glide 5"
    finally:
        await page.close()

    missing = run_script(path, "--start-url", f"{demo.url}/")  # a parameter left out
    assert missing.returncode == 2 and "--link-name" in missing.stderr


def test_text_from_the_plan_is_only_ever_a_string_in_the_script(workspace: Settings) -> None:
    skill = skill_by_name(open_store(workspace), SEARCH_SKILL)
    assert skill is not None
    plan = read_plan(skill.plan)
    hostile = "#q'); import os; os.system('touch pwned') #\n\"\"\""
    field = plan.steps[1]
    target = replace(field.targets["selector"], selector=hostile)
    plan.steps[1] = replace(
        field, arguments={**field.arguments, "selector": hostile}, targets={"selector": target}
    )
    plan.params[0].description = hostile
    code = script_for(plan, SEARCH_SKILL, 1)
    tree = ast.parse(code)
    called = {
        n.func.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        if isinstance(n.func, ast.Attribute)
    }
    assert "system" not in called
    assert "os" not in imported_modules(code)
    texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert texts.count(hostile) == 3  # the locator twice (typing, Enter) and the help


def test_a_step_no_plain_script_can_do_is_refused_by_name(workspace: Settings) -> None:
    skill = skill_by_name(open_store(workspace), SEARCH_SKILL)
    assert skill is not None
    plan = read_plan(skill.plan)
    plan.steps.insert(1, PlannedStep("scroll", {"direction": "down"}))
    with pytest.raises(CannotExport, match=r"^Cannot export step 2 \(scroll\): "):
        script_for(plan, SEARCH_SKILL, 1)

    env = {"BROWSER_AGENT_WORKSPACE": str(workspace.workspace)}
    for name, said in (
        ("no_such_skill", "No skill 'no_such_skill'"),
        (SEARCH_SKILL, "No skill 'search_sort' v9"),
    ):
        extra = ["--version", "9"] if name == SEARCH_SKILL else []
        done = CliRunner().invoke(app, ["skills", "export", name, *extra], env=env)
        assert done.exit_code == 2, done.output
        assert said in done.output and "Traceback" not in done.output
    assert exported_script(open_store(workspace), SEARCH_SKILL, 1).startswith(
        '"""Skill search_sort v1'
    )
