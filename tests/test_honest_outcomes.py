"""Honest outcomes: a run succeeds only through finish saying so; a bare reply is said back
once and then fails the run; a finish that cannot be read is described back; SIGTERM
stores the run as interrupted; a run whose process was killed becomes abandoned at the
next opening of the store; a misbehaving endpoint and an odd command end as failed runs
in one line, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlmodel import Session

from browser_agent.demo_site import DemoSite
from browser_agent.harvest.logs import read_log
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.planner.loop import BARE_REPLY
from browser_agent.settings import Settings
from browser_agent.store.abandoned import this_process
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.scripted import search_and_sort

COMMAND = "find trail shoes in the shop and sort by best seller"


class Replies:
    """A model that gives ``replies`` in order, keeping every conversation it was sent."""

    def __init__(self, *replies: LLMReply) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict]] = []

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        self.seen.append([dict(m) for m in messages])
        return self.replies[min(len(self.seen), len(self.replies)) - 1]


def finish(arguments: str, n: int = 1) -> LLMReply:
    return LLMReply(None, [ToolCall(f"f{n}", "finish", arguments)])


def run_row(settings: Settings, run_id: str) -> Run:
    with Session(open_store(settings)) as db:
        row = db.get(Run, run_id)
        assert row is not None
        return row


@pytest.mark.parametrize("text", ["I could not find the search box.", "", "Done. ##TERMINATE##"])
async def test_a_bare_reply_is_said_back_once_then_the_run_fails(
    settings: Settings, browser: Browser, text: str
) -> None:
    model = Replies(LLMReply(text))

    result = await run_command("search for boots", FunctionClient(model), settings, browser=browser)

    assert result.status == "failed" and result.llm_calls == 2
    assert model.seen[1][-1] == {"role": "user", "content": BARE_REPLY}
    row = run_row(settings, result.run_id)
    assert row.status == "failed" and "stopped without calling finish" in (row.error or "")


async def test_a_bare_reply_then_finish_succeeds(settings: Settings, browser: Browser) -> None:
    model = Replies(
        LLMReply("Let me think."),
        finish(json.dumps({"answer": "Nothing needed doing.", "success": True})),
    )

    result = await run_command("do nothing", FunctionClient(model), settings, browser=browser)

    assert (result.status, result.answer, result.llm_calls) == (
        "succeeded",
        "Nothing needed doing.",
        2,
    )


async def test_a_finish_that_cannot_be_read_is_described_back(
    settings: Settings, browser: Browser
) -> None:
    model = Replies(
        finish('{"answer": "Done.", "success": false', 1),  # cut off: not JSON
        finish('["Done."]', 2),
        finish('{"answer": "Done.", "success": "false"}', 3),
        finish('{"answer": "Done."}', 4),
        finish('{"answer": "The shop has no boots.", "success": false}', 5),
    )

    result = await run_command("buy boots", FunctionClient(model), settings, browser=browser)

    assert (result.status, result.answer, result.llm_calls) == (
        "failed",
        "The shop has no boots.",
        5,
    )
    said = [conversation[-1]["content"] for conversation in model.seen[1:]]
    assert "the arguments of finish are not valid JSON" in said[0]
    assert "the arguments of finish must be a JSON object" in said[1]
    assert 'success must be true or false, not "false"' in said[2]
    assert "missing a required argument: 'success'" in said[3]
    log = json.loads(Path(result.log_path).read_text())
    assert [m["content"] for m in log if m["role"] == "tool"][:4] == said


async def test_the_text_protocols_end_marker_must_say_whether_it_succeeded(
    settings: Settings, browser: Browser
) -> None:
    model = Replies(
        LLMReply("I could not find the search box. ##TERMINATE##"),
        finish('{"answer": "I could not find the search box.", "success": false}'),
    )
    with start_test_llm_server(model) as server:
        llm = OpenAIClient("m", base_url=server.base_url, text_actions=True)
        result = await run_command("search for boots", llm, settings, browser=browser)

    assert (result.status, result.answer) == ("failed", "I could not find the search box.")
    assert "missing a required argument: 'success'" in model.seen[1][-1]["content"]


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        ("html_200", "answered with an HTML page, not a chat completion"),
        ("object_arguments", "sent the arguments of open_url as a JSON object, not as JSON text"),
    ],
)
async def test_a_misbehaving_endpoint_ends_the_run_as_failed_in_one_line(
    settings: Settings, browser: Browser, demo: DemoSite, fault: str, said: str
) -> None:
    with start_test_llm_server(search_and_sort(demo.url, "trail shoes", "Best seller")) as server:
        server.inject(fault)
        llm = OpenAIClient("m", base_url=server.base_url)
        result = await run_command(COMMAND, llm, settings, start_url=demo.url, browser=browser)

    assert result.status == "failed"
    row = run_row(settings, result.run_id)
    assert row.status == "failed" and said in (row.error or "")
    assert "\n" not in (row.error or "") and "\n" not in result.answer
    assert Path(result.log_path).exists()


def own_log(tmp_path: Path, ending: list[dict], status: str = "succeeded") -> Path:
    """A log of this project's shape: the shop opened, then ``ending``; its meta says
    ``status``."""
    call = {"id": "c1", "type": "function", "function": {"name": "open_url", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": 'Execute the user task "open the shop".'},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Page loaded: http://127.0.0.1/"},
        *ending,
    ]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    meta = {"id": "r1", "command": "open the shop", "status": status}
    path.with_suffix(".meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return path


def finished(arguments: dict, response: str = "Finished.") -> list[dict]:
    call = {"id": "f", "type": "function", "function": {"name": "finish"}}
    call["function"]["arguments"] = json.dumps(arguments)
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "f", "content": response},
    ]


@pytest.mark.parametrize(
    ("ending", "harvestable"),
    [
        (finished({"answer": "Opened the shop.", "success": True}), True),
        ([{"role": "assistant", "content": "Opened the shop. ##TERMINATE##"}], False),
        ([{"role": "assistant", "content": "I could not find the search box."}], False),
        (finished({"answer": "Opened the shop.", "success": "true"}), False),
        (finished({"answer": "Opened the shop.", "success": False}), False),
        (finished({"answer": "", "success": True}), False),
        (finished({"answer": "Done.", "success": True}, "Error: wrong arguments"), False),
    ],
)
def test_harvest_trusts_a_status_only_with_a_successful_finish_in_the_log(
    tmp_path: Path, ending: list[dict], harvestable: bool
) -> None:
    assert read_log(own_log(tmp_path, ending)).succeeded is harvestable
    assert read_log(own_log(tmp_path, ending, status="failed")).succeeded is False


def test_a_browser_use_history_without_done_is_not_harvested(tmp_path: Path) -> None:
    history = json.loads((Path(__file__).parent / "logs" / "browser_use_search.json").read_text())
    assert read_log(Path(__file__).parent / "logs" / "browser_use_search.json").succeeded
    for step in history["history"]:
        actions = step["model_output"]["action"]
        step["model_output"]["action"] = [a for a in actions if "done" not in a]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history), encoding="utf-8")
    meta = {"command": "search for trail shoes", "status": "succeeded"}
    path.with_suffix(".meta.json").write_text(json.dumps(meta), encoding="utf-8")

    assert read_log(path).succeeded is False


# The command line, in processes of its own.


@pytest.fixture
def slow_llm() -> Iterator[LLMTestServer]:
    """An endpoint that takes a minute to answer: a run waits on it, mid-way."""
    with start_test_llm_server(lambda messages, tools: LLMReply("x")) as server:
        server.latency_s = 60
        yield server


def cli_env(settings: Settings, llm: LLMTestServer | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BROWSER_AGENT_"))}
    env["BROWSER_AGENT_WORKSPACE"] = str(settings.workspace)
    if llm is not None:
        env.update(BROWSER_AGENT_LLM_BASE_URL=llm.base_url, BROWSER_AGENT_LLM_API_KEY="k")
    return env


def start_cli(settings: Settings, llm: LLMTestServer | None, *arguments: str | bytes):
    return subprocess.Popen(  # noqa: S603 - this project's own command line
        [sys.executable, "-m", "browser_agent.cli", "run", *arguments],
        env=cli_env(settings, llm),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def runs_in(settings: Settings) -> list[tuple]:
    database = settings.workspace / "browser_agent.db"
    if not database.exists():
        return []
    with sqlite3.connect(database) as db:
        try:
            return db.execute("SELECT id, status, pid, host, error, command FROM run").fetchall()
        except sqlite3.OperationalError:  # the tables are being made
            return []


def wait_for_a_running_run(settings: Settings, process: subprocess.Popen) -> tuple:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = runs_in(settings)
        if found and found[0][1] == "running":
            return found[0]
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    raise AssertionError("no run started")


def test_a_killed_process_leaves_its_run_abandoned_at_the_next_opening(
    settings: Settings, slow_llm: LLMTestServer, demo: DemoSite
) -> None:
    process = start_cli(settings, slow_llm, "open the shop", "--url", demo.url)
    run_id, _status, pid, host, _error, _command = wait_for_a_running_run(settings, process)
    assert (pid, host) == (process.pid, this_process()[1])
    process.kill()
    process.wait(timeout=30)
    mine, _ = this_process()
    with Session(open_store(settings)) as db:  # runs of other hosts and live processes stay
        db.add(Run(id="elsewhere", command="x", pid=process.pid, host="another-host"))
        db.add(Run(id="alive", command="x", pid=mine, host=this_process()[1]))
        db.commit()

    open_store(settings)

    statuses = {row[0]: (row[1], row[4]) for row in runs_in(settings)}
    assert statuses[run_id][0] == "abandoned" and "process" in statuses[run_id][1]
    assert statuses["elsewhere"] == ("running", None)
    assert statuses["alive"] == ("running", None)
    listed = subprocess.run(
        [sys.executable, "-m", "browser_agent.cli", "runs"],
        env=cli_env(settings, None),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "abandoned" in listed.stdout


def test_sigterm_stores_the_run_as_interrupted_with_its_logs(
    settings: Settings, slow_llm: LLMTestServer, demo: DemoSite
) -> None:
    process = start_cli(settings, slow_llm, "open the shop", "--url", demo.url)
    run_id = wait_for_a_running_run(settings, process)[0]
    deadline = time.monotonic() + 60
    while not slow_llm.requests and time.monotonic() < deadline:  # into the model call
        time.sleep(0.1)

    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=30)

    assert process.returncode == 143
    assert err.decode().strip().splitlines() == [
        "Stopped by SIGTERM. The run is kept as interrupted."
    ]
    ((_id, status, _pid, _host, error, _command),) = runs_in(settings)
    assert (status, error) == ("interrupted", "Stopped by SIGTERM.")
    log = settings.workspace / "logs" / f"{run_id}.json"
    assert '"open the shop"' in json.loads(log.read_text())[1]["content"]
    assert json.loads(log.with_suffix(".meta.json").read_text())["status"] == "interrupted"


def test_an_endpoint_answering_with_an_html_page_fails_the_run_without_a_traceback(
    settings: Settings, demo: DemoSite
) -> None:
    with start_test_llm_server() as server:
        for _ in range(3):
            server.inject("html_200")
        process = start_cli(settings, server, "open the shop", "--url", demo.url)
        out, err = process.communicate(timeout=120)

    assert process.returncode == 1
    assert "Traceback" not in (out + err).decode()
    ((_id, status, _pid, _host, error, _command),) = runs_in(settings)
    assert status == "failed" and "HTML page" in error and "\n" not in error


def test_a_command_that_is_not_utf8_is_run_and_kept(settings: Settings, demo: DemoSite) -> None:
    process = start_cli(
        settings, None, b"search for caf\xff shoes", "--url", demo.url, "--model", "offline"
    )
    out, err = process.communicate(timeout=120)

    assert process.returncode in (0, 1), err.decode()
    assert "Traceback" not in (out + err).decode()
    ((_id, _status, _pid, _host, _error, command),) = runs_in(settings)
    assert command == "search for caf\ufffd shoes"
