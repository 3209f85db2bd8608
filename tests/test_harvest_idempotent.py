"""Harvesting is idempotent and batches are robust: a run is harvested once, the same code
makes no new version, one command shape has one skill, a re-harvest keeps every command
template, a dry run shows each distinct module once, and one bad log never stops a batch.

Real Chromium, the real demo shop and a real SQLite store; only the model is scripted."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlmodel import Session, select
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.harvest.harvester import (
    NEW_SKILL,
    NEW_VERSION,
    UNCHANGED,
    Draft,
    harvest,
    plan_from,
    write_skill,
)
from browser_agent.harvest.sameness import module_fingerprint
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.plans.codegen import generate_module
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.models import HarvestedSource, Run
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import (
    TemplateConflict,
    merge_templates,
    normalise_shape,
    skill_by_name,
    versions_of,
)
from browser_agent.validate.validator import run_validation
from tests.scripted import search_and_sort
from tests.skill_workspaces import clone_workspace, expecting_stale, workspace_settings

SEARCH = "find {search_term} in the shop and sort by {sort_by}"
NARROWER = "find {search_term} in the shop and sort by customer {sort_by}"


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def scripted_search(
    command: str, term: str, option: str, settings: Settings, browser: Browser, demo: DemoSite
) -> RunResult:
    """``command`` carried out by a scripted model that searches and picks ``option``."""
    run = await run_command(
        command,
        FunctionClient(search_and_sort(demo.url, term, option)),
        settings,
        start_url=demo.url,
        browser=browser,
        engine=open_store(settings),
    )
    assert run.status == "succeeded", run.answer
    return run


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def two_runs(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace with two successful, not yet harvested runs of one command shape."""
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("runs") / "workspace")
    for command, term, option in [
        ("find trail shoes in the shop and sort by best seller", "trail shoes", "Best seller"),
        ("find road shoes in the shop and sort by price low to high", "road shoes", "price_asc"),
    ]:
        await scripted_search(command, term, option, settings, browser, demo)
    return settings


@pytest.fixture
def workspace(two_runs: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(two_runs, tmp_path / "workspace")


def invoke(workspace: Settings, *args: str) -> tuple[int, str]:
    """``browser-agent ARGS`` on the workspace: exit code and output."""
    env = {
        "BROWSER_AGENT_WORKSPACE": str(workspace.workspace),
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": str(int(workspace.action_timeout_ms)),
        "COLUMNS": "400",
    }
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.output


def summary_of(output: str) -> str:
    """The summary line a harvest ends with, on one line."""
    return " ".join(output[output.rindex("Harvest of") :].split())


def run_logs(settings: Settings) -> dict[str, Path]:
    """The chat log of each run in the store, by command."""
    with Session(open_store(settings)) as db:
        return {run.command: settings.workspace / run.log_path for run in db.exec(select(Run))}


def test_harvest_all_twice_makes_nothing_new(workspace: Settings) -> None:
    engine = open_store(workspace)
    code, output = invoke(workspace, "harvest", "--all")
    assert code == 0, output
    assert summary_of(output) == (
        "Harvest of 2 sources: 1 new skill, 0 new versions, 1 unchanged, "
        "0 already harvested, 0 skipped."
    )
    (skill,) = current_skills(engine)
    assert (skill.name, skill.version, skill.status) == ("find_shop_sort", 1, "healthy")
    assert json.loads(skill.command_templates) == [SEARCH]
    with Session(engine) as db:
        runs = [run.id for run in db.exec(select(Run).order_by(Run.started_at)).all()]
        remembered = {s.key: s.outcome for s in db.exec(select(HarvestedSource)).all()}
    assert json.loads(skill.source_runs) == runs  # the second run is the same code's source
    assert remembered == {f"run {runs[0]}": NEW_SKILL, f"run {runs[1]}": UNCHANGED}
    modules = sorted(workspace.harvested_dir.iterdir())

    code, output = invoke(workspace, "harvest", "--all")
    assert code == 0, output
    assert summary_of(output) == (
        "Harvest of 2 sources: 0 new skills, 0 new versions, 0 unchanged, "
        "2 already harvested (--again harvests them anew), 0 skipped."
    )
    assert [v.version for v in versions_of(engine, "find_shop_sort")] == [1]

    # forced: both runs are read again, and give the code the skill already has
    code, output = invoke(workspace, "harvest", "--all", "--again")
    assert code == 0, output
    assert "0 new skills, 0 new versions, 2 unchanged, 0 already harvested" in summary_of(output)
    assert [v.version for v in versions_of(engine, "find_shop_sort")] == [1]
    assert sorted(workspace.harvested_dir.iterdir()) == modules
    assert json.loads(skill_by_name(engine, "find_shop_sort").source_runs) == runs  # type: ignore[union-attr]

    # a store made before sources were remembered knows them as its skills' source runs
    with Session(engine) as db:
        for remembered_source in db.exec(select(HarvestedSource)).all():
            db.delete(remembered_source)
        db.commit()
    code, output = invoke(workspace, "harvest", "--all")
    assert code == 0, output
    assert "0 unchanged, 2 already harvested" in summary_of(output)


def test_a_dry_run_over_many_copies_of_one_log_prints_the_module_once(
    workspace: Settings,
) -> None:
    log = run_logs(workspace)["find trail shoes in the shop and sort by best seller"]
    imported = workspace.workspace / "imported"
    imported.mkdir()
    copies = []
    for n in range(40):  # another agent's logs: no run metadata beside them
        copy = imported / f"agent-{n:02}.json"
        shutil.copyfile(log, copy)
        copies.append(str(copy))
    code, output = invoke(workspace, "harvest", "--dry-run", *copies)
    assert code == 0, output
    assert output.count("async def find_shop_sort(") == 1
    assert "would write a new skill find_shop_sort; same module from 40 runs" in output
    assert "and 37 more" in output
    assert "Dry run (nothing written) of 40 sources: 40 new skills" in " ".join(output.split())
    assert not workspace.harvested_dir.exists()
    assert current_skills(open_store(workspace)) == []


def test_a_broken_log_does_not_stop_the_batch(workspace: Settings) -> None:
    logs = run_logs(workspace)
    good = logs["find trail shoes in the shop and sort by best seller"]
    imported = workspace.workspace / "imported"
    imported.mkdir()
    truncated = imported / "truncated.json"
    truncated.write_text(good.read_text()[:500], encoding="utf-8")
    # a call with a value no Python literal can hold (JSON allows NaN): generating the
    # code raises
    messages = json.loads(
        logs["find road shoes in the shop and sort by price low to high"].read_text()
    )
    for message in messages:
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == "enter_text":
                arguments = json.loads(call["function"]["arguments"])
                call["function"]["arguments"] = json.dumps(
                    arguments | {"press_enter": float("nan")}
                )
    odd = imported / "odd.json"
    odd.write_text(json.dumps(messages), encoding="utf-8")

    code, output = invoke(workspace, "harvest", str(truncated), str(odd), str(good))
    assert code == 0, output
    flat = " ".join(output.split())
    assert f"skipped {truncated}: is not valid JSON" in flat, output
    assert f"failed {odd}: harvesting failed: CSTValidationError: " in flat, output
    assert re.search(r"find_shop_sort v1 \(new skill\): verified, healthy", flat)
    assert summary_of(output).startswith(
        "Harvest of 3 sources: 1 new skill, 0 new versions, 0 unchanged, 0 already harvested, "
        "1 skipped (is not valid JSON"
    )
    assert "1 failed (CSTValidationError: " in summary_of(output)
    (skill,) = current_skills(open_store(workspace))
    assert skill.status == "healthy"

    # the next batch passes over the harvested run, and tries the failed one and the log
    # that could not be read again (it may have been fixed since)
    code, output = invoke(workspace, "harvest", str(truncated), str(odd), str(good))
    assert code == 0, output
    assert summary_of(output).startswith(
        "Harvest of 3 sources: 0 new skills, 0 new versions, 0 unchanged, 1 already harvested"
    )
    assert "1 skipped (is not valid JSON" in summary_of(output)
    assert "1 failed (CSTValidationError" in summary_of(output)


async def test_one_command_shape_has_one_skill(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    first = await scripted_search(
        "find trail shoes in the shop and sort by best seller",
        "trail shoes",
        "Best seller",
        settings,
        browser,
        demo,
    )
    # a skill of this shape registered under another name than the harvester gives it
    plan = plan_from(Path(first.log_path))
    code = generate_module(plan, "shoe_search")
    shape = normalise_shape(plan.template)
    write_skill(Draft(plan, "shoe_search", code, [plan.template], shape), settings, engine)

    later = await scripted_search(
        "Find sandals in the shop and sort by price: high to low",
        "sandals",
        "price: high to low",
        settings,
        browser,
        demo,
    )
    (result,) = await harvest([Path(later.log_path)], settings, engine, browser=browser)
    assert result.error is None and result.name == "shoe_search"
    assert result.outcome in (UNCHANGED, NEW_VERSION)
    assert [s.name for s in current_skills(engine)] == ["shoe_search"]


async def test_a_narrower_reharvest_keeps_the_original_route(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    engine = open_store(settings)
    original = await scripted_search(
        "find trail shoes in the shop and sort by best seller",
        "trail shoes",
        "Best seller",
        settings,
        browser,
        demo,
    )
    (made,) = await harvest([Path(original.log_path)], settings, engine, browser=browser)
    assert made.verified, made.verify_error

    demo.variant = "redesign"
    report = await run_validation(settings, all_skills=True, browser=browser)
    assert [c.verdict for c in report.checked] == ["stale"]
    # the planner does a narrower command: the option's value, "rating", is the parameter
    narrow = await scripted_search(
        "find sandals in the shop and sort by customer rating",
        "sandals",
        "rating",
        settings,
        browser,
        demo,
    )
    report = await run_validation(settings, all_skills=True, reharvest=True, browser=browser)
    (checked,) = report.checked
    assert checked.renewed is not None and checked.renewed.passed, checked.renewed
    assert checked.renewed.source == f"run {narrow.run_id}"
    renewed = skill_by_name(engine, "find_shop_sort")
    assert renewed is not None and (renewed.version, renewed.status) == (2, "healthy")
    assert json.loads(renewed.command_templates) == [SEARCH, NARROWER]

    # the original command still goes straight to the skill, on the redesigned shop
    again = await run_command(
        "find road shoes in the shop and sort by price low to high",
        FunctionClient(no_llm),
        settings,
        start_url=demo.url,
        browser=browser,
        engine=engine,
    )
    assert (again.status, again.llm_calls, again.steps) == ("succeeded", 0, 1), again.answer
    assert again.final_url == f"{demo.url}/search?query=road+shoes&order=price_asc"

    # a later planner run of the narrower shape joins the same skill
    planner_only = settings.with_overrides(use_skills=False)
    later = await scripted_search(
        "find hiking in the shop and sort by customer rating",
        "hiking",
        "rating",
        planner_only,
        browser,
        demo,
    )
    results = await harvest(
        [Path(narrow.log_path), Path(later.log_path)], settings, engine, browser=browser
    )
    assert [(r.outcome, r.name) for r in results] == [
        ("already harvested", "find_shop_sort"),
        (UNCHANGED, "find_shop_sort"),
    ]
    assert [s.name for s in current_skills(engine)] == ["find_shop_sort"]


def test_merged_templates_keep_every_route_with_the_new_parameter_names() -> None:
    assert merge_templates([SEARCH], NARROWER) == [SEARCH, NARROWER]
    assert merge_templates([SEARCH, NARROWER], SEARCH) == [SEARCH, NARROWER]
    assert merge_templates([SEARCH], "Find {query} in the shop and sort by {order}") == [
        "find {query} in the shop and sort by {order}"
    ]
    assert merge_templates(["open {link_name}", "show {link_name}"], "open {product}") == [
        "open {product}",
        "show {product}",
    ]
    with pytest.raises(TemplateConflict, match="sort_by"):
        merge_templates([SEARCH], "find {search_term} in the shop and sort by best seller")


def test_provenance_does_not_change_a_module_fingerprint() -> None:
    plan = plan_from(Path(__file__).parent / "logs" / "other_agent.json")
    first = generate_module(plan, "some_skill")
    plan.source, plan.command = "another run", plan.command.upper()
    for param in plan.params:
        param.description += " (and more)"
    again = generate_module(plan, "some_skill")
    assert again != first and module_fingerprint(again) == module_fingerprint(first)
    plan.start_url += "/elsewhere"
    assert module_fingerprint(generate_module(plan, "some_skill")) != module_fingerprint(first)


async def test_a_new_version_replaces_the_current_one_only_once_its_replay_passes(
    workspace: Settings, browser: Browser
) -> None:
    engine = open_store(workspace)
    logs = run_logs(workspace)
    (first,) = await harvest(
        [logs["find trail shoes in the shop and sort by best seller"]],
        workspace,
        engine,
        browser=browser,
    )
    assert (first.outcome, first.verified) == (NEW_SKILL, True)
    # the other run, as if the sort box had been recorded under an id the shop never had:
    # other code, so a new version, whose replay cannot pass
    log = logs["find road shoes in the shop and sort by price low to high"]
    broken = workspace.workspace / "imported" / "broken-sort.json"
    broken.parent.mkdir()
    text = log.read_text(encoding="utf-8")
    assert 'id=\\"sort\\"' in text
    broken.write_text(text.replace('id=\\"sort\\"', 'id=\\"sort-gone\\"'), encoding="utf-8")
    (second,) = await harvest([broken], expecting_stale(workspace), engine, browser=browser)
    assert (second.outcome, second.verified) == (NEW_VERSION, False)
    current = skill_by_name(engine, "find_shop_sort")
    assert current is not None and (current.version, current.status) == (1, "healthy")
    assert [(v.version, v.current) for v in versions_of(engine, "find_shop_sort")] == [
        (1, True),
        (2, False),
    ]
