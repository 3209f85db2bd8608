"""Command-line habits people bring from tools such as ``llm``: a command read from standard
input with ``-``, ``runs`` filtered as the console's run list is (status, site, skill, start
time, words), ``--json`` still one document.

The runs are real: carried out in a real Chromium on the demo shop and on a second site
served on 127.0.0.1, one of them routed through a harvested skill, kept in a SQLite store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.console.browse import find_runs
from browser_agent.demo_site import DemoSite
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from tests.served_site import ServedSite
from tests.skill_workspaces import SEARCH, harvest_commands, run_offline, workspace_settings

BROWSER_AGENT = str(Path(sys.executable).parent / "browser-agent")


class NewsSite(ServedSite):
    """A second site: one page with a heading and no search box."""

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        body = b"<html><head><title>News</title></head><body><h1>Today</h1></body></html>"
        request.send_response(200)
        request.send_header("Content-Type", "text/html")
        request.end_headers()
        request.wfile.write(body)


def cli(settings: Settings, *args: str, given: str | None = None) -> subprocess.CompletedProcess:
    """``browser-agent ARGS`` as its own process on the workspace, ``given`` on stdin."""
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "COLUMNS": "100",
    }
    return subprocess.run(
        [BROWSER_AGENT, *args], input=given, capture_output=True, text=True, env=env, timeout=120
    )


def listed(settings: Settings, *args: str) -> list[str]:
    """The ids ``runs --json ARGS`` lists."""
    done = CliRunner().invoke(
        app, ["--workspace", str(settings.workspace), "runs", "--json", *args]
    )
    assert done.exit_code == 0, done.output
    return [run["id"] for run in json.loads(done.output)["runs"]]


@pytest.fixture(scope="module")
def news() -> Iterator[ServedSite]:
    with NewsSite() as site:
        yield site


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def stored(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite, news: ServedSite
) -> dict[str, str]:
    """A workspace with a harvested search, a run routed through it, a run on the news
    site that cannot do its command, and the harvest's source run moved a week back."""
    settings = workspace_settings(tmp_path_factory.mktemp("habits") / "workspace")
    await harvest_commands([SEARCH], settings, browser, demo)
    engine = open_store(settings)
    store = Store.of(engine)
    (source,) = [row["id"] for row in store.execute("SELECT id FROM run").rows]
    routed = await run_offline(
        "search for road shoes and sort by price low to high", "/", settings, engine, browser, demo
    )
    failed = await run_command(
        "buy a newspaper subscription",
        OfflinePlanner(),
        settings,
        start_url=f"{news.url}/",
        browser=browser,
        engine=engine,
        max_steps=2,
    )
    week_ago = datetime.now(UTC) - timedelta(days=7)
    store.execute("UPDATE run SET started_at = :at WHERE id = :id", at=week_ago, id=source)
    (skill,) = current_skills(engine)
    return {
        "workspace": str(settings.workspace),
        "source": source,
        "routed": routed.run_id,
        "routed_status": routed.status,
        "failed": failed.run_id,
        "failed_status": failed.status,
        "skill": skill.name,
    }


@pytest.fixture
def settings(stored: dict[str, str]) -> Settings:
    return workspace_settings(Path(stored["workspace"]))


def test_runs_filter_by_status_site_skill_time_and_words(
    stored: dict[str, str], settings: Settings, news: ServedSite, demo: DemoSite
) -> None:
    source, routed, failed = stored["source"], stored["routed"], stored["failed"]
    assert stored["routed_status"] == "succeeded"
    assert stored["failed_status"] != "succeeded"
    assert listed(settings) == [failed, routed, source]
    assert listed(settings, "--skill", stored["skill"]) == [routed]
    assert listed(settings, "--status", "succeeded") == [routed, source]
    assert listed(settings, "--status", stored["failed_status"]) == [failed]
    news_host = news.url.removeprefix("http://")
    assert listed(settings, "--site", news_host) == [failed]
    assert listed(settings, "--site", demo.url) == [routed, source]
    assert listed(settings, "--site", "127.0.0.1") == [failed, routed, source]
    assert listed(settings, "--site", "example.com") == []
    assert listed(settings, "--since", "3d") == [failed, routed]
    tomorrow = (datetime.now() + timedelta(days=1)).date().isoformat()
    assert listed(settings, "--since", tomorrow) == []
    assert listed(settings, "--grep", "ROAD shoes") == [routed]
    assert listed(settings, "--grep", "shoes", "--status", "succeeded", "--limit", "1") == [routed]


@pytest.mark.parametrize(("status", "words"), [("succeeded", None), (None, "SHOES"), (None, "%")])
def test_runs_lists_what_the_console_lists_for_the_same_filter(
    settings: Settings, status: str | None, words: str | None
) -> None:
    args = [*(["--status", status] if status else []), *(["--grep", words] if words else [])]
    console = [run.id for run in find_runs(open_store(settings), status, words)]
    assert listed(settings, *args) == console


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--status", "done"], "--status 'done': a run's status is one of running, succeeded"),
        (["--since", "last week"], "--since 'last week' is neither a duration"),
        (["--site", "http://"], "--site 'http://': name a host"),
    ],
)
def test_a_filter_that_cannot_be_met_is_one_line(
    settings: Settings, args: list[str], said: str
) -> None:
    done = cli(settings, "runs", *args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"Error: {said}"), done.stderr


def test_run_dash_reads_the_command_from_standard_input(tmp_path: Path, demo: DemoSite) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    command = f"open {demo.url}/ and search for trail shoes"
    done = cli(settings, "run", "-", "--json", given=f"{command}\n")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["final_url"].endswith("/search?q=trail+shoes")
    shown = json.loads(cli(settings, "show", result["run_id"], "--json").stdout)
    assert shown["run"]["command"] == command


def test_run_dash_with_nothing_on_standard_input_or_asking_on_it_is_one_line(
    settings: Settings,
) -> None:
    empty = cli(settings, "run", "-", given="  \n")
    assert (empty.returncode, empty.stderr.strip()) == (
        2,
        "Error: the command is empty: say what the agent should do.",
    )
    asking = cli(settings, "run", "-", "--approve", given="open the shop\n")
    assert asking.returncode == 2
    assert asking.stderr.strip().startswith("Error: --approve and --review ask on standard input")


def test_output_read_only_in_part_ends_quietly() -> None:
    """``browser-agent run --help | head -40``: the reader leaves before the help is
    written out; the command stops without an error line (exit code 1, as rich's own)."""
    for _ in range(3):
        command = subprocess.Popen(
            [BROWSER_AGENT, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert command.stdout is not None and command.stderr is not None
        for _line in range(40):
            command.stdout.readline()
        command.stdout.close()
        said = command.stderr.read().decode()
        command.wait(timeout=60)
        assert said == "" and command.returncode in (0, 1), said
