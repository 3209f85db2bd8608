"""The validator on the demo shop: skills harvested on the normal variant, validated on the
redesign; the CLI's exit codes, report and lock."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio
from filelock import FileLock
from playwright.async_api import Browser
from sqlmodel import Session, select
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Validation
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import skill_by_name
from browser_agent.validate.lock import LockHeld, lock_path, validation_lock
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import (
    ACCEPT_COOKIES,
    ADD_TO_CART,
    LOG_IN,
    OPEN_PRODUCT,
    SEARCH,
    clone_workspace,
    expecting_stale,
    harvest_commands,
    workspace_settings,
)
from tests.stored_rows import rewritten

SKILLS = {
    "search_sort": SEARCH,
    "add_size_quantity_cart": ADD_TO_CART,
    "open_link_name": OPEN_PRODUCT,
    "accept_cookies": ACCEPT_COOKIES,
    "log_password": LOG_IN,
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace with five skills harvested (and verified) on the normal shop."""
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("harvested") / "workspace")
    await harvest_commands(list(SKILLS.values()), settings, browser, demo)
    skills = {s.name: s.status for s in current_skills(open_store(settings))}
    # the log-in skill takes the password as a parameter: never stored, so never verified
    assert skills == {name: "healthy" for name in SKILLS} | {"log_password": "candidate"}
    return settings


@pytest.fixture
def workspace(harvested: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(harvested, tmp_path / "workspace")


async def test_redesign_makes_changed_skills_stale_and_keeps_the_rest_healthy(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    demo.variant = "redesign"
    report = await run_validation(
        expecting_stale(workspace), all_skills=True, concurrency=4, browser=browser
    )

    verdicts = {c.name: (c.verdict, c.step, c.selector) for c in report.checked}
    assert verdicts == {
        "search_sort": ("stale", 2, "#search-box"),
        "add_size_quantity_cart": ("stale", 3, "#size"),  # step 2 is the product link: kept
        "open_link_name": ("healthy", None, None),
        "accept_cookies": ("healthy", None, None),
        "log_password": ("needs a secret", None, None),
    }
    assert report.exit_code() == 1
    status = {s.name: s.status for s in current_skills(engine)}
    assert status["search_sort"] == status["add_size_quantity_cart"] == "stale"
    assert status["open_link_name"] == status["accept_cookies"] == "healthy"
    assert status["log_password"] == "candidate"  # not replayed, so not judged

    with Session(engine) as db:
        rows = {v.skill_name: v for v in db.exec(select(Validation)).all()}
    assert set(rows) == set(SKILLS) - {"log_password"}
    stale = rows["search_sort"]
    assert (stale.passed, stale.step, stale.selector) == (False, 2, "#search-box")
    assert "no visible element matches #search-box" in (stale.error or "")
    assert stale.screenshot and Path(stale.screenshot).is_file()
    assert Path(stale.screenshot).parent == workspace.workspace / "reports" / "screenshots"
    skill = skill_by_name(engine, "search_sort")
    assert skill is not None and skill.last_validated_at is not None
    assert skill.last_error and skill.last_error.startswith("step 2 (#search-box)")
    # what is reported healthy really ends where it was recorded to end, or on the same
    # kind of page for another product the shop listed beside the example's
    for checked in report.checked:
        if checked.verdict == "healthy":
            ending = skill_by_name(engine, checked.name)
            assert ending is not None
            ended, recorded = urlsplit(checked.final_url or ""), urlsplit(ending.expected_end)
            assert ended.path.rsplit("/", 1)[0] == recorded.path.rsplit("/", 1)[0], checked

    demo.variant = "normal"
    again = await run_validation(workspace, ["search_sort"], browser=browser)
    assert [c.verdict for c in again.checked] == ["healthy"]
    assert skill_by_name(engine, "search_sort").status == "healthy"  # type: ignore[union-attr]


async def test_one_crashing_skill_does_not_stop_the_others(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(workspace)
    broken = skill_by_name(engine, "open_link_name")
    assert broken is not None

    def crash(plan: dict) -> None:  # a key that is no text: the primitive itself fails
        plan["steps"].append(dict(plan["steps"][-1], primitive="press_key_combination",
                                  arguments={"keys": 5}, targets={}))  # fmt: skip

    rewritten(engine, broken, crash)
    report = await run_validation(
        workspace, ["open_link_name", "accept_cookies"], concurrency=2, browser=browser
    )
    verdicts = {c.name: (c.verdict, c.error) for c in report.checked}
    assert verdicts == {
        "open_link_name": ("error", "AttributeError: 'int' object has no attribute 'strip'"),
        "accept_cookies": ("healthy", None),
    }
    assert report.exit_code() == 2  # validation could not judge every skill
    assert skill_by_name(engine, "open_link_name").status == "healthy"  # type: ignore[union-attr]


async def test_url_replays_against_another_base_url(
    workspace: Settings, browser: Browser, demo: DemoSite
) -> None:
    down = "http://127.0.0.1:9"  # nothing listens there: no skill can be judged stale
    report = await run_validation(workspace, ["accept_cookies"], base_url=down, browser=browser)
    (checked,) = report.checked
    assert checked.verdict == "error" and "127.0.0.1:9/deals" in (checked.error or "")
    assert skill_by_name(open_store(workspace), "accept_cookies").status == "healthy"  # type: ignore[union-attr]
    report = await run_validation(workspace, ["accept_cookies"], base_url=demo.url, browser=browser)
    assert [(c.verdict, c.final_url) for c in report.checked] == [("healthy", f"{demo.url}/deals")]


def invoke(workspace: Settings, *args: str, chromium: str | None = None) -> tuple[int, str]:
    """Run ``browser-agent validate ARGS`` on the workspace; exit code and output."""
    env = {
        "BROWSER_AGENT_WORKSPACE": str(workspace.workspace),
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": str(int(workspace.action_timeout_ms)),
        "COLUMNS": "250",
    }
    if chromium:
        env["BROWSER_AGENT_CHROMIUM"] = chromium
    result = CliRunner().invoke(app, ["validate", *args], env=env)
    return result.exit_code, result.output


def test_cli_exit_codes_json_and_report(workspace: Settings, demo: DemoSite) -> None:
    code, output = invoke(workspace, "open_link_name", "accept_cookies", "--json")
    assert code == 0, output
    data = json.loads(output)
    assert data["exit_code"] == 0 and fitting(data["counts"]) == {"healthy": 2}
    assert {s["name"] for s in data["skills"]} == {"open_link_name", "accept_cookies"}

    demo.variant = "redesign"
    report = workspace.workspace / "reports" / "validate-test.json"
    stale = expecting_stale(workspace)
    code, output = invoke(stale, "--all", "--concurrency", "4", "--report", str(report))
    assert code == 1, output
    assert "stale" in output and "#search-box" in output and "needs a secret" in output
    saved = json.loads(report.read_text())
    assert fitting(saved["counts"]) == {"healthy": 2, "stale": 2, "needs a secret": 1}


def fitting(counts: dict[str, int]) -> dict[str, int]:
    """``counts`` with "late" read as "healthy": on a busy machine a skill that still fits its
    page can be late (the page slower than the short wait these replays get), which leaves
    the skill as it was and the exit code at 0; only "stale" counts against a skill."""
    kept = {verdict: n for verdict, n in counts.items() if verdict != "late"}
    if counts.get("late"):
        kept["healthy"] = kept.get("healthy", 0) + counts["late"]
    return kept


def test_cli_exit_code_2_when_validation_cannot_run(workspace: Settings) -> None:
    code, output = invoke(workspace, "no_such_skill")
    assert code == 2 and "no_such_skill" in output
    code, output = invoke(workspace)
    assert code == 2 and "--all" in output
    code, output = invoke(workspace, "--all", chromium="/nonexistent/chromium")
    assert code == 2 and "does not exist" in output


def test_two_validations_never_run_at_once(workspace: Settings) -> None:
    with FileLock(lock_path(workspace)):
        code, output = invoke(workspace, "--all")
        assert code == 2 and "Another validation is running" in output
        with pytest.raises(LockHeld), validation_lock(workspace):
            pass
    with validation_lock(workspace):  # released: the next validation takes it
        pass
