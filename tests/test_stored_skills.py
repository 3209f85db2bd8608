"""Stored skills are data: a row changed in the store (its code, its hash, its plan) runs
nothing of what was written into it. Each case is made by plain SQL on a real store, as
anyone who can write the store could; the code added would write a marker file if it ran.
The skill is then refused: not loaded, not routed, not replayed by validate, and shown
refused with its reason in ``skills``, ``skills show`` and ``validate`` (and their JSON)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.skills.stored import (
    BAD_HASH,
    BEFORE_PLANS,
    NOT_MADE,
    SkillRefused,
    load_skill,
    refusal,
)
from browser_agent.store.candidates import rollback
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import add_version, skill_by_name
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import SEARCH, harvest_commands, workspace_settings
from tests.stored_rows import rewritten

ROUTED = "search for sandals and sort by customer rating"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> SkillRow:
    """The search skill, harvested and verified once on the demo shop."""
    settings = workspace_settings(tmp_path_factory.mktemp("stored") / "workspace")
    await harvest_commands([SEARCH], settings, browser, demo)
    (skill,) = current_skills(open_store(settings))
    assert skill.status == "healthy" and skill.plan and refusal(skill) is None
    return skill


@pytest.fixture
def stored(harvested: SkillRow, store_url: str, tmp_path: Path) -> Settings:
    """A workspace whose store (SQLite, or PostgreSQL) holds the harvested skill's row."""
    shared = None if store_url.startswith("sqlite") else store_url
    settings = workspace_settings(tmp_path / "workspace").with_overrides(database_url=shared)
    add_version(open_store(settings), Skill(**row_fields(harvested, "id")))
    return settings


def row_fields(skill: SkillRow, *left_out: str) -> dict[str, object]:
    """A skill row's values but ``left_out``, to store as another row."""
    return {key: value for key, value in asdict(skill).items() if key not in left_out}


def marker_code(marker: Path) -> str:
    """Python that writes ``marker`` when it runs."""
    return f"\nimport pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"


def sql(settings: Settings, statement: str, **values: object) -> None:
    """One statement on the store, as its owner's SQL client would send it."""
    Store.of(open_store(settings)).execute(statement, **values)


def tampered_source(settings: Settings, marker: Path) -> None:
    sql(settings, "UPDATE skill SET source = source || :code", code=marker_code(marker))


def blank_hash(settings: Settings, marker: Path) -> None:
    code = marker_code(marker)
    sql(settings, "UPDATE skill SET source = source || :code, source_hash = ''", code=code)


def recomputed_hash(settings: Settings, marker: Path) -> None:
    (skill,) = current_skills(open_store(settings))
    code = skill.source + marker_code(marker)
    digest = hashlib.sha256(code.encode()).hexdigest()
    sql(
        settings, "UPDATE skill SET source = :code, source_hash = :digest", code=code, digest=digest
    )


def plan_that_does_not_validate(settings: Settings, marker: Path) -> None:
    """A step that would call something that is not a primitive, code added to match."""
    (skill,) = current_skills(open_store(settings))
    plan = json.loads(skill.plan)
    plan["steps"][1]["primitive"] = f"__import__('pathlib').Path({str(marker)!r}).touch"
    code = skill.source + marker_code(marker)
    digest = hashlib.sha256(code.encode()).hexdigest()
    sql(
        settings,
        "UPDATE skill SET plan = :plan, source = :code, source_hash = :digest",
        plan=json.dumps(plan),
        code=code,
        digest=digest,
    )


def plan_that_differs(settings: Settings, marker: Path) -> None:
    """A valid plan that types other text than the harvested one; the code left as it was."""
    (skill,) = current_skills(open_store(settings))
    plan = json.loads(skill.plan)
    plan["steps"][1]["arguments"]["text"] = "typed by someone else"
    sql(settings, "UPDATE skill SET plan = :plan", plan=json.dumps(plan))


def listed_for_no_parameter(settings: Settings, marker: Path) -> None:
    """The site's other values kept for a parameter the plan does not have."""
    (skill,) = current_skills(open_store(settings))
    plan = json.loads(skill.plan)
    plan["listed"] = {"nobody": ["Osprey"]}
    sql(settings, "UPDATE skill SET plan = :plan", plan=json.dumps(plan))


def plan_unreadable(settings: Settings, marker: Path) -> None:
    sql(settings, "UPDATE skill SET plan = :plan", plan="{not json")


def plan_blanked(settings: Settings, marker: Path) -> None:
    """As a store made before plans were kept holds its skills."""
    sql(settings, "UPDATE skill SET plan = ''")


def hash_blanked(settings: Settings, marker: Path) -> None:
    sql(settings, "UPDATE skill SET source_hash = ''")


CASES: dict[str, tuple[Callable[[Settings, Path], None], str]] = {
    "tampered source": (tampered_source, NOT_MADE),
    "blank hash": (blank_hash, NOT_MADE),
    "recomputed hash": (recomputed_hash, NOT_MADE),
    "plan that does not validate": (plan_that_does_not_validate, "its plan does not validate"),
    "plan that is not JSON": (plan_unreadable, "its plan does not validate"),
    "values listed for no parameter": (
        listed_for_no_parameter,
        "its plan uses a parameter it does not have",
    ),
    "plan that differs from the code": (plan_that_differs, NOT_MADE),
    "no plan": (plan_blanked, BEFORE_PLANS),
    "hash blanked alone": (hash_blanked, BAD_HASH),
}
# The command line says a refusal the same way whatever changed: once for each reason.
SAID_ONCE = {reason: case for case, (_, reason) in reversed(CASES.items())}.values()


async def cli(settings: Settings, *args: str) -> tuple[int, str]:
    """``browser-agent ARGS`` on the workspace and store: exit code and output (the command
    line run in a thread, with an event loop of its own as in a process)."""
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "250"}
    if settings.database_url:
        env["BROWSER_AGENT_DATABASE_URL"] = settings.database_url
    done = await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)
    return done.exit_code, done.output


@pytest.mark.parametrize("case", CASES)
async def test_a_changed_row_is_refused_and_nothing_written_into_it_runs(
    case: str, stored: Settings, browser: Browser, demo: DemoSite, tmp_path: Path
) -> None:
    change, reason = CASES[case]
    marker = tmp_path / "ran"
    (before,) = current_skills(open_store(stored))
    assert refusal(before, stored.workspace) is None  # checked, and marked so in the workspace
    change(stored, marker)
    engine = open_store(stored)
    (skill,) = current_skills(engine)
    assert reason in (refusal(skill, stored.workspace) or "")  # its mark was of the row before
    with pytest.raises(SkillRefused):
        load_skill(skill)

    run = await run_command(
        ROUTED, OfflinePlanner(), stored, start_url=f"{demo.url}/", browser=browser, engine=engine
    )
    assert run.status == "succeeded" and run.llm_calls > 0  # the planner did it: not routed
    steps = json.loads((stored.workspace / run.log_path).read_text())
    assert skill.name not in json.dumps(steps)  # neither routed nor offered as a tool

    report = await run_validation(stored, all_skills=True, browser=browser)
    (checked,) = report.checked
    assert checked.verdict == "refused" and reason in (checked.error or "")
    assert report.exit_code() == 1
    assert skill_by_name(engine, skill.name).status == "healthy"  # type: ignore[union-attr]
    assert not marker.exists()  # nothing written into the row ever ran
    if stored.database_url or case not in SAID_ONCE:  # either store, any change: read alike
        return
    code, output = await cli(stored, "skills", "--json")
    assert code == 0, output
    (listed,) = json.loads(output)["skills"]
    assert listed["status"] == "refused" and reason in listed["refused"]
    code, output = await cli(stored, "skills")
    assert code == 0 and f"{skill.name} is refused: {reason}" in " ".join(output.split())
    code, output = await cli(stored, "skills", "show", skill.name, "--json")
    shown = json.loads(output)
    assert (shown["status"], shown["source"]) == ("refused", None) and reason in shown["problem"]
    code, output = await cli(stored, "skills", "show", skill.name)
    assert code == 0 and "refused" in output and "async def" not in output

    code, output = await cli(stored, "validate", "--all", "--json")
    assert code == 1 and json.loads(output)["counts"] == {"refused": 1}
    assert not marker.exists()


async def test_a_plan_rewritten_with_its_code_runs_the_code_made_from_the_plan(
    stored: Settings, browser: Browser, tmp_path: Path
) -> None:
    """Code and plan changed together, as only a harvest writes them: the store cannot tell
    it from a harvest, so it runs, but what runs is what the codegen makes of the plan: a
    hostile selector stays a string (the replay looks for it and finds nothing)."""
    marker = tmp_path / "ran"
    hostile = f"#sort')\nimport pathlib; pathlib.Path({str(marker)!r}).touch() #"
    engine = open_store(stored)
    (skill,) = current_skills(engine)

    def edit(plan: dict) -> None:
        plan["steps"][2]["targets"]["selector"]["selector"] = hostile

    changed = rewritten(engine, skill, edit)
    assert refusal(changed) is None
    report = await run_validation(stored, all_skills=True, browser=browser)
    (checked,) = report.checked
    assert (checked.verdict, checked.step, checked.selector) == ("stale", 3, hostile)
    assert not marker.exists()


async def test_a_rollback_goes_back_to_a_version_that_loads(stored: Settings) -> None:
    engine = open_store(stored)
    (first,) = current_skills(engine)
    add_version(engine, Skill(**row_fields(first, "id", "version")))
    sql(stored, "UPDATE skill SET plan = '' WHERE version = 2")  # the new one is refused
    assert refusal(skill_by_name(engine, first.name)) == BEFORE_PLANS  # type: ignore[arg-type]
    back = rollback(engine, first.name)
    assert back.version == 1 and refusal(back) is None
    assert load_skill(back).__name__ == first.name


def test_the_stored_plan_keeps_every_field_of_a_skill_plan() -> None:
    # a field the store's plan left out would make other code at load time than at
    # harvest time, and every new skill would be refused
    from dataclasses import fields

    from browser_agent.plans.plan import SkillPlan
    from browser_agent.plans.plan_data import PlanData

    kept = {f.name for f in fields(SkillPlan)}
    assert kept == set(PlanData.model_fields) - {"format"}
