"""A skill that matches a command but is not run (refused, stale) is named where the person
is: ``browser-agent run`` says so in one line, ``--json`` in ``passed_over``, and the run
carries on with the planner as before. The command line runs in a process of its own, with
a real Chromium on the demo shop and the workspace's SQLite store; the built-in offline
planner decides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from browser_agent.demo_site import DemoSite
from browser_agent.planner.router import decide
from browser_agent.plans.plan import Param
from browser_agent.settings import Settings
from browser_agent.skills.stored import NOT_MADE
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import add_version
from tests.stored_rows import clicking, opening, planned_skill

CLI = str(Path(sys.executable).with_name("browser-agent"))
COMMAND = "open Trail Blazer 2"


def with_skill(settings: Settings, demo: DemoSite) -> None:
    """The workspace's store holds a healthy skill for "open {name}" on the demo shop."""
    name = Param("name", "The product to open.", "Trail Blazer 2")
    steps = [
        opening(f"{demo.url}/"),
        clicking("text=Trail Blazer 2", "link", "Trail Blazer 2", "a"),
    ]
    skill = planned_skill(
        "open_product",
        "open {name}",
        steps,
        params=[name],
        status="healthy",
        start_url=f"{demo.url}/",
        example_args=json.dumps({"name": "Trail Blazer 2"}),
    )
    add_version(open_store(settings), skill)


def sql(settings: Settings, statement: str, **values: object) -> None:
    Store.of(open_store(settings)).execute(statement, **values)


def run(settings: Settings, demo: DemoSite, *options: str) -> tuple[int, str]:
    """``browser-agent run COMMAND`` on the demo shop, with no model configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(BROWSER_AGENT_WORKSPACE=str(settings.workspace), COLUMNS="250")
    done = subprocess.run(
        [CLI, "run", COMMAND, "--url", f"{demo.url}/", *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def test_run_says_a_refused_skill_is_passed_over_and_carries_on(
    settings: Settings, demo: DemoSite, tmp_path: Path
) -> None:
    with_skill(settings, demo)
    marker = tmp_path / "ran"
    code = f"\nimport pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    sql(settings, "UPDATE skill SET source = source || :code", code=code)

    status, printed = run(settings, demo)
    assert status == 0, printed
    said = (
        "Skill open_product v1 is refused (its stored code is not what its plan makes (the row "
        "was changed after harvesting, or another release made it); harvest it again); "
        "carrying on with the planner."
    )
    assert said in " ".join(printed.split())
    assert "succeeded" in printed

    status, printed = run(settings, demo, "--json")
    assert status == 0, printed
    result = json.loads(printed)
    assert result["status"] == "succeeded" and result["llm_calls"] > 0
    assert result["passed_over"] == [
        {
            "skill": "open_product",
            "version": 1,
            "state": "refused",
            "why": NOT_MADE,
            "instead": "the planner",
        }
    ]
    assert not marker.exists()


def test_a_stale_skill_that_matches_is_named_with_why(settings: Settings, demo: DemoSite) -> None:
    with_skill(settings, demo)
    sql(
        settings,
        "UPDATE skill SET status = 'stale', routable = :no, "
        "last_error = 'step 2: #gone is not\n there'",
        no=False,
    )
    routing = decide(COMMAND, current_skills(open_store(settings)), f"{demo.url}/")
    assert routing.route is None
    (passed,) = routing.passed_over
    assert passed.said() == (
        "Skill open_product v1 is stale (step 2: #gone is not there); carrying on with the planner."
    )
    sql(settings, "UPDATE skill SET status = 'healthy', routable = :yes", yes=True)
    routing = decide(COMMAND, current_skills(open_store(settings)), f"{demo.url}/")
    assert routing.route is not None and routing.passed_over == []
