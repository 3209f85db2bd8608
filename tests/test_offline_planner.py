"""The offline planner in real Chromium on the demo shop (the suite is in offline_suite.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Browser
from sqlalchemy import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.llm.choose import make_llm
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.offline.command import make_plan
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.testing.openai_server import start_test_llm_server
from tests.offline_suite import CASES, REFUSALS, Case, run_case, verify


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """One store for the module's runs (opening one per run costs more than the run's rows)."""
    workspace = tmp_path_factory.mktemp("offline-store")
    return open_store(load_settings().with_overrides(workspace=workspace))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_command_reaches_the_real_end_state(
    case: Case, settings: Settings, browser: Browser, demo: DemoSite, store: Engine
) -> None:
    verify(case, await run_case(case, settings, browser, demo, store))


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
async def test_refusal_says_could_not_and_touches_nothing(
    case: Case, settings: Settings, browser: Browser, demo: DemoSite, store: Engine
) -> None:
    verify(case, await run_case(case, settings, browser, demo, store))


async def test_through_the_openai_client_and_the_default_test_policy(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    with start_test_llm_server() as server:
        llm = OpenAIClient("test-model", base_url=server.base_url, max_retries=0)
        result = await run_command(
            "search for trail shoes and sort by price low to high",
            llm,
            settings,
            start_url=f"{demo.url}/",
            browser=browser,
        )
        await llm.aclose()

    assert result.status == "succeeded", result.answer
    query = parse_qs(urlsplit(result.final_url or "").query)
    assert query == {"q": ["trail shoes"], "sort": ["price_asc"]}
    assert len(server.requests) == result.llm_calls == result.steps + 1
    assert all(request.get("tools") for request in server.requests)


async def test_the_planner_is_stateless_and_sync_or_async() -> None:
    messages = [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": 'Execute the user task "open Trail Blazer 2" starting at '
         "http://127.0.0.1:1/. Current date and time: 2026-01-01 00:00 UTC."},
    ]  # fmt: skip
    planner = OfflinePlanner()

    first, again = planner(messages, []), await planner.complete(messages, [])

    assert first == again
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [
        ("open_url", {"url": "http://127.0.0.1:1/"})
    ]


def test_a_command_without_a_site_is_refused_before_any_step() -> None:
    assert make_plan("search for trail shoes", None).problem.startswith(
        "I could not tell which site to open"
    )


def test_make_llm_falls_back_to_the_offline_planner(settings: Settings) -> None:
    endpoint = settings.with_overrides(llm_base_url="http://127.0.0.1:9/v1")
    unset = settings.model_copy(update={"llm_base_url": None, "llm_api_key": None})

    assert isinstance(make_llm(unset, None).client(), OfflinePlanner)
    assert isinstance(make_llm(endpoint, "offline").client(), OfflinePlanner)
    hosted = make_llm(endpoint, "some-model")
    assert hosted.name == "some-model" and not hosted.made  # nothing loads before a call
    assert isinstance(hosted.client(), OpenAIClient)


def test_demo_runs_offline_harvests_and_reuses_the_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "BROWSER_AGENT_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("BROWSER_AGENT_LLM_API_KEY", raising=False)
    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(tmp_path))

    result = CliRunner().invoke(app, ["demo"])

    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    workspace = Path(output.split("Logs, skill and database of this demo: ")[1].split()[0])
    settings = load_settings().with_overrides(workspace=workspace)
    with Session(open_store(settings)) as db:
        first, second = db.exec(select(Run).order_by(Run.started_at)).all()
    assert (first.status, first.model) == ("succeeded", "offline")
    assert first.llm_calls > 0
    assert first.final_url and first.final_url.endswith("/search?q=trail+shoes&sort=price_asc")
    assert (second.status, second.llm_calls, second.steps) == ("succeeded", 0, 1)
    assert second.final_url and second.final_url.endswith("/search?q=sandals&sort=rating")
    assert "Before and after harvesting" in output
    assert list((workspace / "skills" / "harvested").glob("*.py"))
    assert not list(tmp_path.iterdir())  # the demo keeps to its own workspace
    shutil.rmtree(workspace)
