"""A user's mistake is one line and exit code 2, never a traceback; a run stopped by a
signal says what it was and keeps the model calls it made. Each case through the real
command line, in a process of its own; and what docs/security.md says of javascript: URLs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest

from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.errors import ActionError
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.settings import Settings
from browser_agent.skills.primitive import click, open_url
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.conftest import settings_in

CLI = str(Path(sys.executable).with_name("browser-agent"))


def cli(settings: Settings, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``browser-agent ARGS`` on the settings' workspace, with ``env`` set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BROWSER_AGENT_"))}
    clean["BROWSER_AGENT_WORKSPACE"] = str(settings.workspace)
    return subprocess.run(
        [CLI, *args], env={**clean, **env}, capture_output=True, text=True, timeout=180
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a mistake is said in (stderr), checked to be one line, no traceback."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"BROWSER_AGENT_WORKSPACE": "/proc/nope"}, "the folder /proc/nope cannot be made"),
        ({"BROWSER_AGENT_ALLOWED_DOMAINS": ",,,"}, "',,,' names no domain"),
        ({"BROWSER_AGENT_LLM_TIMEOUT_S": "inf"}, "must be a finite number, got inf"),
        ({"BROWSER_AGENT_ACTION_TIMEOUT_MS": "nan"}, "must be a finite number, got nan"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:70000/v1"}, "port is out of range"),
        ({"BROWSER_AGENT_DATABASE_URL": "postgresql://a:pw@127.0.0.1:99999/x"}, "out of range"),
        ({"BROWSER_AGENT_BROWSER_ENDPOINT": "ws://127.0.0.1:65536/"}, "out of range"),
    ],
)
@pytest.mark.parametrize("command", [["info"], ["run", "open the shop", "--model", "offline"]])
def test_a_setting_that_cannot_be_used_is_one_line_exit_2(
    settings: Settings, env: dict[str, str], said: str, command: list[str]
) -> None:
    done = cli(settings, *command, **env)
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert said in line and "pw" not in line


@pytest.mark.parametrize(
    "args",
    [
        ["demo-site", "--port", "70000"],
        ["serve", "--port", "65536"],
        ["run", "open the shop", "--url", "http://127.0.0.1:70000/", "--model", "offline"],
        ["batch", "commands.txt", "--cluster", "tcp://127.0.0.1:99999"],
        ["run", "open the shop", "--allow-domain", ",,,", "--model", "offline"],
    ],
)
def test_a_port_out_of_range_or_an_empty_allow_list_is_refused_up_front(
    settings: Settings, args: list[str]
) -> None:
    settings.workspace.mkdir(parents=True, exist_ok=True)
    (settings.workspace / "commands.txt").write_text("open the shop\n")
    done = subprocess.run(
        [CLI, *args],
        env={**os.environ, "BROWSER_AGENT_WORKSPACE": str(settings.workspace)},
        cwd=settings.workspace,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert "65535" in line or "names no domain" in line, line
    assert not (settings.workspace / "logs").exists()  # nothing was run


def test_demo_site_module_refuses_a_port_out_of_range() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "browser_agent.demo_site", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "invalid _port value: '70000'" in done.stderr


def test_harvest_of_a_missing_file_is_one_line_exit_2(settings: Settings) -> None:
    done = cli(settings, "harvest", str(settings.workspace / "missing.json"), "no-such-run")
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert "missing.json" in line and "'no-such-run'" in line


class _Loop(BaseHTTPRequestHandler):
    """Every address redirects to itself."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(302)
        self.send_header("Location", "/loop")
        self.end_headers()


@pytest.fixture
def redirect_loop() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Loop)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/loop"
    finally:
        server.shutdown()
        server.server_close()


def test_a_redirect_loop_under_an_allow_list_fails_the_run_in_words(
    settings: Settings, redirect_loop: str
) -> None:
    done = cli(
        settings,
        "run",
        "open the page",
        "--url",
        redirect_loop,
        "--allow-domain",
        "127.0.0.1",
        "--model",
        "offline",
        "--json",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr and not done.stderr.strip()
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and "ERR_TOO_MANY_REDIRECTS" in result["answer"]


def stored_run(settings: Settings) -> tuple | None:
    database = settings.workspace / "browser_agent.db"
    if not database.exists():
        return None
    with sqlite3.connect(database) as db:
        try:
            return db.execute("SELECT id, status, llm_calls FROM run").fetchone()
        except sqlite3.OperationalError:  # the tables are being made
            return None


def looking_then_waiting(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A model that looks at the page once, then takes a minute over its next answer."""
    if not any(m.get("role") == "tool" for m in messages):
        return LLMReply(None, [ToolCall("c1", "get_url", "{}")])
    time.sleep(60)
    return LLMReply("too late")


@pytest.fixture
def second_call_slow() -> Iterator[LLMTestServer]:
    with start_test_llm_server(looking_then_waiting) as server:
        yield server


def start_run(settings: Settings, llm: LLMTestServer, demo: DemoSite) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BROWSER_AGENT_"))}
    env.update(
        BROWSER_AGENT_WORKSPACE=str(settings.workspace),
        BROWSER_AGENT_LLM_BASE_URL=llm.base_url,
        BROWSER_AGENT_LLM_API_KEY="k",
    )
    return subprocess.Popen(
        [CLI, "run", "look at the shop", "--url", demo.url, "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def waiting_on_its_second_call(
    settings: Settings, llm: LLMTestServer, process: subprocess.Popen[str]
) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if len(llm.requests) >= 2:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    raise AssertionError("the run never made its second model call")


def test_run_json_interrupted_prints_its_json(
    settings: Settings, second_call_slow: LLMTestServer, demo: DemoSite
) -> None:
    process = start_run(settings, second_call_slow, demo)
    waiting_on_its_second_call(settings, second_call_slow, process)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert err.strip().splitlines() == ["Stopped by SIGTERM. The run is kept as interrupted."]
    result = json.loads(out)
    assert (result["status"], result["steps"], result["error"]) == (
        "interrupted",
        1,
        "Stopped by SIGTERM.",
    )
    assert result["llm_calls"] == 1 and result["run_id"] == stored_run(settings)[0]  # type: ignore[index]


def test_a_killed_run_keeps_the_model_calls_it_made(
    settings: Settings, second_call_slow: LLMTestServer, demo: DemoSite
) -> None:
    process = start_run(settings, second_call_slow, demo)
    waiting_on_its_second_call(settings, second_call_slow, process)
    process.kill()  # SIGKILL: nothing of the process runs after this
    process.wait(timeout=30)
    (_id, status, llm_calls) = stored_run(settings)  # type: ignore[misc]
    assert (status, llm_calls) == ("running", 1)  # the answered call; the second never was


async def test_a_pages_own_javascript_link_runs_and_the_agents_is_refused(
    page_session: BrowserSession,
) -> None:
    """As docs/security.md says: the page's script is the page's; the agent opens none."""
    await page_session.page.set_content(
        "<title>before</title><a id='run' href=\"javascript:void(document.title='ran')\">Run</a>"
    )
    await click("#run")
    assert await page_session.page.title() == "ran"
    with pytest.raises(ActionError, match="Refusing to open a javascript: URL"):
        await open_url("javascript:document.title='agent'")
    assert await page_session.page.title() == "ran"


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("open file:///etc/passwd", "The command names file:///etc/passwd. Refusing to open"),
        ("read FILE:/etc/hosts, then stop", "The command names FILE:/etc/hosts. Refusing"),
        ("open chrome://settings and look", "The command names chrome://settings. Refusing"),
        ("log in with password {PASSWORD}", "the secret {PASSWORD}, which is not configured"),
        ("type {api_key} in the key field", "BROWSER_AGENT_SECRET_API_KEY or pass --secret"),
    ],
)
def test_a_command_naming_a_local_url_or_an_unset_secret_is_one_line_before_the_browser(
    settings: Settings, command: str, said: str
) -> None:
    done = cli(settings, "run", command, "--url", "http://127.0.0.1:9/", "--model", "offline")
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in one_line(done)
    assert not (settings.workspace / "logs").exists()  # no run began


def test_a_named_secret_that_is_set_or_a_file_url_allowed_is_no_mistake(settings: Settings) -> None:
    """The checks above refuse only what the settings do not give."""
    given = cli(
        settings,
        "run",
        "log in with password {PASSWORD} at file:///etc/hostname",
        "--model",
        "offline",
        "--json",
        BROWSER_AGENT_SECRET_PASSWORD="hunter2",
        BROWSER_AGENT_ALLOW_FILE_URLS="true",
    )
    assert given.returncode in (0, 1) and json.loads(given.stdout)["run_id"], given.stderr


def damage(database: Path, pages: range) -> None:
    """Zero ``pages`` (numbered from 1) of the SQLite file ``database``."""
    with sqlite3.connect(database) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
    with database.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(b"\0" * size)


@pytest.fixture(scope="module")
def upgraded_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with its tables, made once by ``db upgrade``, for each test to copy."""
    workspace = tmp_path_factory.mktemp("upgraded")
    assert cli(settings_in(workspace), "db", "upgrade").returncode == 0
    return workspace / "browser_agent.db"


@pytest.mark.parametrize("pages", [range(1, 3), range(3, 8)], ids=["header", "tables"])
@pytest.mark.parametrize(
    "command", [["runs"], ["show", "abc"], ["run", "open the shop", "--model", "offline", "--json"]]
)
def test_a_store_file_with_zeroed_pages_is_one_line_naming_it(
    settings: Settings, pages: range, command: list[str], upgraded_store: Path
) -> None:
    database = settings.workspace / "browser_agent.db"
    settings.workspace.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(upgraded_store, database)  # a store with its tables
    damage(database, pages)
    done = cli(settings, *command)
    assert done.returncode == 2, done.stdout + done.stderr
    line = one_line(done)
    assert f"cannot open the store sqlite:///{database}: " in line, line
    assert not done.stdout.strip() and not (settings.workspace / "logs").exists()
