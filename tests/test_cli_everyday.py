"""Everyday use of the command line, as a person at an 80-column terminal or a script
piping its output would meet it: --version and -h, --json on every listing (one JSON
document with the fields docs/json.md lists), run ids never cut, a dry run's source piped
into a file that parses, user mistakes in one line with exit code 2, and no spinner or
progress bar when the output is not a terminal.

Every command runs as its own process with COLUMNS=80 and piped output; the runs are
carried out in a real Chromium on the demo shop by a scripted model."""

from __future__ import annotations

import ast
import http.server
import json
import os
import subprocess
import sys
import threading
from importlib.metadata import version
from io import StringIO
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from rich.console import Console
from sqlmodel import Session
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.cli.progress import counting, waiting_for_model
from browser_agent.demo_site import DemoSite
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.memory_models import MemoryEntry
from browser_agent.store.models import Skill
from browser_agent.store.skills import add_version
from tests.skill_workspaces import clone_workspace, workspace_settings
from tests.test_harvest_idempotent import scripted_search

COMMANDS = [
    ("find trail shoes in the shop and sort by best seller", "trail shoes", "Best seller"),
    ("find road shoes in the shop and sort by price low to high", "road shoes", "price_asc"),
]

# The fields docs/json.md documents for each --json output.
RUN_FIELDS = {
    "id",
    "command",
    "status",
    "answer",
    "error",
    "model",
    "start_url",
    "final_url",
    "steps",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "started_at",
    "finished_at",
}
STEP_FIELDS = {"index", "tool", "arguments", "ok", "response", "error", "seconds", "url_after"}
SKILL_FIELDS = {
    "name",
    "version",
    "status",
    "command_templates",
    "uses",
    "successes",
    "failures",
    "last_validated_at",
    "last_error",
    "example_args",
    "module_path",
    "source_runs",
}
HARVESTED_FIELDS = {
    "source",
    "outcome",
    "name",
    "version",
    "module_path",
    "verified",
    "verify_error",
    "reason",
    "error",
    "earlier",
    "dropped",
}
MEMORY_FIELDS = {"id", "kind", "text", "run_id", "created_at"}


def cli(
    workspace: Settings | Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``browser-agent ARGS`` as its own process at 80 columns, stdout and stderr piped."""
    folder = workspace if isinstance(workspace, Path) else workspace.workspace
    environment = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(folder),
        "COLUMNS": "80",
        "BROWSER_AGENT_LLM_MODEL": "offline",
        **(env or {}),
    }
    environment.pop("FORCE_COLOR", None)
    return subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def as_json(done: subprocess.CompletedProcess[str]) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one_line_mistake(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a user mistake gets: exit code 2, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def two_runs(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace with two successful runs of one command shape, not harvested."""
    demo.variant = "normal"
    settings = workspace_settings(tmp_path_factory.mktemp("everyday") / "workspace")
    for command, term, option in COMMANDS:
        await scripted_search(command, term, option, settings, browser, demo)
    return settings


@pytest.fixture
def workspace(two_runs: Settings, tmp_path: Path) -> Settings:
    return clone_workspace(two_runs, tmp_path / "workspace")


def test_version_help_alias_and_completion(tmp_path: Path) -> None:
    assert cli(tmp_path, "--version").stdout == f"browser-agent {version('browser-agent')}\n"
    for args in (["-h"], ["runs", "-h"], ["skills", "show", "-h"], ["memory", "list", "-h"]):
        done = cli(tmp_path, *args)
        assert done.returncode == 0 and "Usage: browser-agent" in done.stdout, args
    assert "--install-completion" in cli(tmp_path, "--help").stdout
    # the shell is named, not looked for among the parent processes (a test has none)
    named = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    script = cli(tmp_path, "--show-completion", "bash", env=named)
    assert script.returncode == 0 and "_BROWSER_AGENT_COMPLETE" in script.stdout


def test_every_listing_prints_one_json_document_with_the_documented_fields(
    workspace: Settings,
) -> None:
    listed = as_json(cli(workspace, "runs", "--json"))["runs"]
    assert len(listed) == 2 and all(set(run) >= RUN_FIELDS for run in listed)
    shown = as_json(cli(workspace, "show", listed[0]["id"], "--json"))
    assert shown["run"]["id"] == listed[0]["id"] and set(shown["run"]) >= RUN_FIELDS
    assert shown["steps"] and all(set(step) >= STEP_FIELDS for step in shown["steps"])
    assert shown["log"].endswith(".json")

    dry = as_json(cli(workspace, "harvest", "--all", "--dry-run", "--json"))
    assert dry["dry_run"] is True and dry["summary"].startswith("Dry run")
    assert all(set(r) >= HARVESTED_FIELDS for r in dry["results"]) and len(dry["results"]) == 2
    assert [set(m) for m in dry["modules"]] == [{"name", "outcome", "sources", "code"}]
    harvested = as_json(cli(workspace, "harvest", "--all", "--no-verify", "--json"))
    assert harvested["counts"] and harvested["results"][0]["module_path"]
    assert "modules" not in harvested

    skills = as_json(cli(workspace, "skills", "--json"))
    assert skills["more"] == 0 and all(set(s) >= SKILL_FIELDS for s in skills["skills"])
    name = skills["skills"][0]["name"]
    skill = as_json(cli(workspace, "skills", "show", name, "--json"))
    assert set(skill) >= SKILL_FIELDS and skill["versions"][0]["version"] == 1
    ast.parse(skill["source"])

    assert as_json(cli(workspace, "memory", "list", "--json")) == {"memories": []}
    assert as_json(cli(workspace, "memory", "search", "shoes", "--json")) == {"memories": []}
    assert as_json(cli(workspace, "memory", "clear", "--yes", "--json")) == {"deleted": 0}
    assert as_json(cli(workspace, "info", "--json"))["workspace"] == str(workspace.workspace)


def test_memory_json_rows_have_the_documented_fields(settings: Settings) -> None:
    with Session(open_store(settings)) as db:
        db.add(MemoryEntry(kind="long", text="the shop sorts by price", run_id="r1"))
        db.commit()
    rows = as_json(cli(settings, "memory", "list", "--json"))["memories"]
    assert [set(row) for row in rows] == [MEMORY_FIELDS] and rows[0]["run_id"] == "r1"


def test_a_dry_run_piped_at_80_columns_is_the_module_harvest_writes(
    workspace: Settings,
) -> None:
    log = sorted(workspace.logs_dir.glob("*.meta.json"))[0].name.removesuffix(".meta.json")
    piped = cli(workspace, "harvest", "--dry-run", log)
    assert piped.returncode == 0, piped.stderr
    ast.parse(piped.stdout)
    assert any(len(line) > 80 for line in piped.stdout.splitlines())  # long lines stay whole
    assert "would write" in piped.stderr and "Dry run" in piped.stderr

    written = cli(workspace, "harvest", "--no-verify", log)
    assert written.returncode == 0, written.stderr
    [module] = workspace.harvested_dir.glob("*.py")
    assert module.read_text(encoding="utf-8") == piped.stdout


def test_run_ids_are_whole_at_80_columns_and_show_takes_a_unique_start(
    workspace: Settings,
) -> None:
    ids = [run["id"] for run in as_json(cli(workspace, "runs", "--json"))["runs"]]
    table = cli(workspace, "runs")
    assert table.returncode == 0
    assert all(line.rstrip() == line.rstrip()[:80] for line in table.stdout.splitlines())
    for run_id in ids:
        assert run_id in table.stdout

    unique = next(
        run_id[:n]
        for n in range(1, len(ids[0]) + 1)
        for run_id in ids
        if sum(other.startswith(run_id[:n]) for other in ids) == 1
    )
    full = next(run_id for run_id in ids if run_id.startswith(unique))
    assert as_json(cli(workspace, "show", unique, "--json"))["run"]["id"] == full
    shared = os.path.commonprefix(ids)
    line = one_line_mistake(cli(workspace, "show", shared))
    assert "several run ids" in line and ids[0] in line


@pytest.mark.parametrize(
    "args",
    [
        ["run", ""],
        ["run", "   "],
        ["run", "find shoes", "--max-steps", "0"],
        ["run", "find shoes", "--max-steps", "-3"],
        ["run", "find shoes", "--url", "javascript:alert(1)"],
        ["run", "find shoes", "--url", "file:///etc/passwd"],
        ["dom", "ftp://127.0.0.1/x"],
        ["dom", "ht!tp://bad"],
        ["dom", "http://"],
        ["run", "find shoes", "--url", "http://[::1"],
        ["run", "find shoes", "--url", "http://exa mple.com"],
        ["show", "no-such-run"],
        ["skills", "show", "no_such_skill"],
        ["validate", "no_such_skill"],
        ["memory", "list", "--kind", "someday"],
        ["memory", "clear"],
        ["harvest"],
        ["runs", "--no-such-option"],
    ],
)
def test_user_mistakes_get_one_line_and_exit_code_2(tmp_path: Path, args: list[str]) -> None:
    assert one_line_mistake(cli(tmp_path, *args)).startswith(("Error", "Validation could not"))


@pytest.mark.parametrize(
    "args",
    [
        ["run", "find shoes", "--url", "http://127.0.0.1:9/"],
        ["dom", "http://127.0.0.1:9/"],
        ["validate", "--all"],
        ["demo"],
    ],
)
def test_no_browser_is_a_setup_problem_with_exit_code_2(tmp_path: Path, args: list[str]) -> None:
    done = cli(tmp_path, *args, env={"BROWSER_AGENT_CHROMIUM": str(tmp_path / "no-chromium")})
    assert "BROWSER_AGENT_CHROMIUM" in one_line_mistake(done)


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("BROWSER_AGENT_CHROMIUM", "/bin/false", "BROWSER_AGENT_CHROMIUM"),  # not a browser
        ("BROWSER_AGENT_BROWSER_ENDPOINT", "ws://me:hunter2@127.0.0.1:9/", "ENDPOINT"),
    ],
)
def test_a_browser_that_does_not_start_is_a_setup_problem_too(
    tmp_path: Path, setting: str, value: str, named: str
) -> None:
    done = cli(tmp_path, "run", "find shoes", "--url", "http://127.0.0.1:9/", env={setting: value})
    line = one_line_mistake(done)
    assert "Could not start the browser" in line and named in line and "hunter2" not in line


def test_a_run_tries_its_browser_once_and_records_why_it_did_not_start(tmp_path: Path) -> None:
    """The browser a run launches while it loads is the only one it tries: what stopped
    it is the run's one line and its stored error (a far endpoint is not waited for twice)."""
    asked: list[str] = []

    class Refusing(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            asked.append(self.path)
            self.send_error(500)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        done = cli(
            tmp_path,
            *("run", "find shoes", "--url", "http://127.0.0.1:9/"),
            env={"BROWSER_AGENT_BROWSER_ENDPOINT": endpoint},
        )
    finally:
        server.shutdown()
    assert "Could not start the browser" in one_line_mistake(done)
    assert len(asked) == 1, asked
    (stored,) = as_json(cli(tmp_path, "runs", "--json"))["runs"]
    assert stored["status"] == "failed"
    assert "Could not start the browser" in stored["error"]


def test_an_unexpected_error_is_one_line_unless_debug(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_settings: Settings) -> dict[str, str]:
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr("browser_agent.cli.info.environment_info", broken)
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace), "COLUMNS": "80"}
    plain = CliRunner().invoke(app, ["info"], env=env)
    assert plain.exit_code == 1
    said = "Error: RuntimeError: a bug over two lines (--debug shows the traceback)\n"
    assert plain.output == said
    debugged = CliRunner().invoke(app, ["--debug", "info"], env=env)
    assert isinstance(debugged.exception, RuntimeError)


def test_no_spinner_or_progress_when_piped(workspace: Settings, demo: DemoSite) -> None:
    ran = cli(workspace, "run", "open the shop", "--url", demo.url, "--max-steps", "3")
    assert "waiting for the model" not in ran.stdout + ran.stderr
    assert "run " in ran.stdout  # the summary line was printed
    harvested = cli(workspace, "harvest", "--all", "--no-verify")
    assert "harvesting" not in harvested.stdout + harvested.stderr


async def test_the_spinner_shows_on_a_terminal_only() -> None:
    def answer(messages: list[dict], tools: list[dict]) -> LLMReply:
        return LLMReply(content="done")

    model = FunctionClient(answer, name="scripted")
    piped = Console(file=StringIO())
    assert waiting_for_model(model, piped) is model
    terminal = Console(file=StringIO(), force_terminal=True, width=80)
    assert waiting_for_model(model, terminal, as_json=True) is model
    shown = waiting_for_model(model, terminal)
    assert shown.name == "scripted" and (await shown.complete([], [])).content == "done"
    assert "waiting for the model (scripted)" in terminal.file.getvalue()


def test_batch_progress_is_off_unless_on_a_terminal() -> None:
    assert counting("harvesting", Console(file=StringIO())).disable
    assert counting("harvesting", Console(file=StringIO(), force_terminal=True), True).disable
    assert not counting("harvesting", Console(file=StringIO(), force_terminal=True)).disable


def on_a_terminal(workspace: Path, *args: str) -> bytes:
    """What ``browser-agent ARGS`` shows on a pseudo-terminal of 80 columns."""
    import pty

    leader, follower = pty.openpty()
    environment = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(workspace), "COLUMNS": "80"}
    environment["BROWSER_AGENT_LLM_MODEL"] = "offline"
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "browser-agent"), *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=environment,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    process.wait(timeout=120)
    return seen


def test_on_a_terminal_run_shows_the_spinner_while_the_model_answers(
    tmp_path: Path, demo: DemoSite
) -> None:
    shown = on_a_terminal(tmp_path, "run", "open the shop", "--url", demo.url, "--max-steps", "3")
    assert b"waiting for the model (offline)" in shown


def test_on_a_terminal_harvest_and_validate_count_their_progress(workspace: Settings) -> None:
    assert b"harvesting" in on_a_terminal(workspace.workspace, "harvest", "--all", "--no-verify")
    assert b"validating" in on_a_terminal(workspace.workspace, "validate", "--all")


def test_validate_and_skills_keep_long_skill_names_whole_at_80_columns(settings: Settings) -> None:
    name = "find_search_term_in_the_shop_and_sort_by_sort_by"
    add_version(
        open_store(settings),
        Skill(name=name, module_path="", shape="x", command_templates='["find {x}"]'),
    )
    listed = cli(settings, "skills").stdout.splitlines()  # a row with no plan: refused
    assert any(name in line and "refused" in line for line in listed)
    checked = cli(settings, "validate", name)  # not replayed: the verdict is refused
    assert any(name in line and "refused" in line for line in checked.stdout.splitlines())


def test_python_dash_m_runs_the_same_command_line(tmp_path: Path) -> None:
    env = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "browser_agent", "runs", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"runs": []}
    assert (tmp_path / "browser_agent.db").is_file()
