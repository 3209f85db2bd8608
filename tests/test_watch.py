"""Watches on the demo shop with a real Chromium and a real store: 20 checks routed through
a harvested skill with no model call, a price change said once, the condition ending the
watch; a watch whose site is down beside one that goes on, its failure told to a real
command and a real HTTP server; and the user's mistakes, one line each."""

from __future__ import annotations

import json
import re
import socket
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest
import pytest_asyncio
from playwright.async_api import Browser
from sqlalchemy import Engine
from sqlmodel import Session
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite, start_demo_site
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.run_steps import steps_of
from browser_agent.store.watches import checks_of, claim, find_watch
from browser_agent.watch.adding import new_watch
from browser_agent.watch.runner import now_utc, run_due
from tests.skill_workspaces import OPEN_PRODUCT, clone_workspace, harvest_commands
from tests.skill_workspaces import workspace_settings as skill_settings

SKILL = "open_link_name"
PERIOD = timedelta(minutes=15)


class Counting:
    """The offline planner, counting the times a check asked it."""

    def __init__(self) -> None:
        self.calls = 0
        self.planner = OfflinePlanner()

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        self.calls += 1
        return self.planner(messages, tools)


@pytest.fixture(scope="module")
def slow_shop() -> Iterator[DemoSite]:
    """A demo shop of the module's own that answers after 10 ms, whose prices it changes."""
    with start_demo_site(port=0, latency_ms=10) as site:
        yield site


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def harvested(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, slow_shop: DemoSite
) -> Settings:
    """A workspace whose store holds the skill harvested from "open Trail Blazer 2"."""
    settings = skill_settings(tmp_path_factory.mktemp("watch") / "workspace")
    await harvest_commands([OPEN_PRODUCT], settings, browser, slow_shop)
    return settings


class Done:
    """What a command line gave: its exit code, stdout and stderr."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli(settings: Settings, *args: str) -> Done:
    """``browser-agent ARGS`` on the settings' workspace, in this process (a process each
    would take seconds on a busy machine; tests/test_bad_inputs.py starts real ones)."""
    env = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "OPENAI_BASE_URL": None,  # the offline planner
        "OPENAI_API_KEY": None,
    }
    result = CliRunner().invoke(app, list(args), env=env)
    return Done(result.exit_code, result.stdout, result.stderr)


def one_line(done: Done) -> str:
    """The one line a mistake is said in (stderr), with no traceback."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_twenty_checks_go_through_the_skill_say_a_change_once_and_stop_on_the_condition(
    harvested: Settings, browser: Browser, slow_shop: DemoSite, tmp_path: Path
) -> None:
    settings = clone_workspace(harvested, tmp_path / "workspace")
    engine = open_store(settings)
    store = Store.of(engine)
    watch, _ = new_watch(
        store,
        settings,
        "open Trail Blazer 2",
        "15m",
        f"{slow_shop.url}/",
        "the price is under 80",
        None,
    )
    model = Counting()
    clock = watch.next_at
    said: list[str] = []
    try:
        for number in range(1, 21):
            if number == 8:
                slow_shop.prices["trail-blazer-2"] = 8500  # from $89.00
            if number == 20:
                slow_shop.prices["trail-blazer-2"] = 7900
            done = await run_due(
                settings, engine, now=clock, browser=browser, llm=FunctionClient(model)
            )
            assert len(done) == 1, f"check {number} was not due"
            said.append(done[0].said())
            # a second runner at the same moment finds nothing due: the check was claimed
            assert await run_due(settings, engine, now=clock, browser=browser) == []
            clock += PERIOD
    finally:
        slow_shop.prices.clear()

    checks = list(reversed(checks_of(store, watch, 50)))
    assert len(checks) == 20
    assert model.calls == 0 and all(check.llm_calls == 0 for check in checks), said
    assert all(check.status == "succeeded" for check in checks), said
    with Session(engine) as db:  # each check is a run, routed to the skill
        for check in checks:
            (step,) = steps_of(db, check.run_id)
            assert (step.tool, step.ok) == (SKILL, True)
    prices = [json.loads(check.extracted)["price"] for check in checks]
    assert prices == [89.0] * 7 + [85.0] * 12 + [79.0]
    changes = [(n, check.changed) for n, check in enumerate(checks, 1) if check.changed]
    assert changes == [
        (8, "price 89 -> 85; the page: -$89.00 | +$85.00"),
        (20, "price 85 -> 79; the page: -$85.00 | +$79.00"),
    ]
    assert [n for n, check in enumerate(checks, 1) if check.held] == [20]
    assert all(c.final_url == f"{slow_shop.url}/product/trail-blazer-2" for c in checks)

    ended = find_watch(store, watch.name)
    assert (ended.status, ended.checks, ended.last_status) == ("done", 20, "succeeded")
    assert "watch done" in said[-1] and "condition holds" in said[-1]
    later = clock + 10 * PERIOD
    assert await run_due(settings, engine, now=later, browser=browser) == []


class Hook(BaseHTTPRequestHandler):
    """An HTTP notify hook on 127.0.0.1 keeping each JSON event it is sent."""

    events: list[dict] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.events.append(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def web_hook() -> Iterator[tuple[str, list[dict]]]:
    events: list[dict] = []
    handler = type("KeptHook", (Hook,), {"events": events})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", events
    finally:
        server.shutdown()
        server.server_close()


def writer(path: Path) -> str:
    """A notify command (no shell) appending the event on stdin, and one variable, to a file."""
    code = (
        "import os, sys; open(sys.argv[1], 'a').write(os.environ['WATCH_EVENT'] "
        "+ ' ' + sys.stdin.read() + '\\n')"
    )
    return f"{sys.executable} -c {json.dumps(code)} '{path}'"


async def test_a_watch_whose_site_is_down_fails_alone_and_its_failure_reaches_the_hooks(
    harvested: Settings,
    browser: Browser,
    slow_shop: DemoSite,
    tmp_path: Path,
    web_hook: tuple[str, list[dict]],
) -> None:
    settings = clone_workspace(harvested, tmp_path / "workspace")
    engine: Engine = open_store(settings)
    store = Store.of(engine)
    url, posted = web_hook
    written = tmp_path / "events.txt"
    down = f"http://127.0.0.1:{closed_port()}/"
    gone, _ = new_watch(store, settings, "open the status page", "1h", down, None, writer(written))
    shop, _ = new_watch(
        store, settings, "open Trail Blazer 2", "1h", f"{slow_shop.url}/", "price changes", url
    )
    broken_hook, _ = new_watch(
        store, settings, "open Road Glide 5", "1h", down, None, "no-such-notify-command --now"
    )
    at = now_utc() + timedelta(seconds=1)

    done = await run_due(settings, engine, now=at, browser=browser)

    outcome = {checked.watch.name: checked.check for checked in done}
    assert set(outcome) == {gone.name, shop.name, broken_hook.name}
    assert outcome[shop.name].status == "succeeded", outcome[shop.name].answer
    assert json.loads(outcome[shop.name].extracted) == {"price": 89.0}
    assert outcome[gone.name].status == "failed" and outcome[gone.name].error
    assert outcome[gone.name].notified == "sent"
    event_name, _, body = written.read_text().strip().partition(" ")
    event = json.loads(body)
    assert event_name == event["event"] == "failed"
    assert (event["watch"], event["status"]) == (gone.name, "failed")
    assert event["error"] == outcome[gone.name].error
    # a hook that cannot run is said on the check; the watch stays active
    assert outcome[broken_hook.name].notified.startswith("failed: no such command")
    assert find_watch(store, broken_hook.name).status == "active"
    assert posted == []  # the shop's first check has nothing to compare with

    # an hour on: the shop's price changed and the web hook is told once; the site still
    # down is not told again (one failure, one event)
    slow_shop.prices["trail-blazer-2"] = 9900
    try:
        again = await run_due(settings, engine, now=at + timedelta(hours=1), browser=browser)
    finally:
        slow_shop.prices.clear()
    outcome = {checked.watch.name: checked for checked in again}
    assert outcome[shop.name].check.changed == "price 89 -> 99; the page: -$89.00 | +$99.00"
    assert [e["event"] for e in posted] == ["changed", "condition"]
    assert posted[0]["watch"] == shop.name and posted[0]["values"] == {"price": 99.0}
    assert outcome[gone.name].check.status == "failed" and outcome[gone.name].events == []
    assert len(written.read_text().strip().splitlines()) == 1
    assert find_watch(store, shop.name).status == "done"  # "price changes" held


def test_mistakes_are_one_line_with_exit_code_2(settings: Settings) -> None:
    cases = [
        (["watch", "open x", "--every", "15 minutes"], "is not a duration"),
        (["watch", "open x", "--every", "0s"], "more than 0s"),
        (["watch", "open x", "--until", "price is cheap"], "is not a condition"),
        (["watch", "open x", "--until", "sell it all"], "is not a condition"),
        (["watch", "open x", "--notify", "ftp://example.com/x"], "http:// or https://"),
        (["watch", "pause", "nosuch"], "no watch 'nosuch'"),
        (["watch", "history", "42"], "no watch '42'"),
        (["watch", "remove", "7"], "no watch '7'"),
        (["watch", "--install", "upstart"], "write systemd or cron"),
        (["watch", "--install", "systemd", "--user", "root"], "not root"),
        (["watch", "install", "cron", "--to", "/proc/no-such-folder"], "No such file"),
    ]
    for args, said in cases:
        done = cli(settings, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert said in one_line(done), args


def test_watches_are_added_listed_paused_resumed_and_removed(settings: Settings) -> None:
    added = cli(settings, "watch", "open Trail Blazer 2", "--every", "15m", "--detach", "--json")
    assert added.returncode == 0, added.stderr
    watch = json.loads(added.stdout)["watch"]
    assert (watch["name"], watch["every_s"], watch["status"]) == (
        "open-trail-blazer-2",
        900,
        "active",
    )
    secret = cli(settings, "watch", "log in with password hunter22", "--detach", "--json")
    assert "hunter22" not in secret.stdout and "{PASSWORD}" in secret.stdout

    assert (
        json.loads(cli(settings, "watch", "pause", "open-trail-blazer-2", "--json").stdout)[
            "watch"
        ]["status"]
        == "paused"
    )
    listed = json.loads(cli(settings, "watch", "list", "--json").stdout)["watches"]
    assert [(w["id"], w["status"]) for w in listed] == [(watch["id"], "paused"), (2, "active")]
    assert "hunter22" not in (settings.workspace / "browser_agent.db").read_bytes().decode(
        "utf-8", "replace"
    )
    resumed = cli(settings, "watch", "resume", str(watch["id"]), "--json")
    assert json.loads(resumed.stdout)["watch"]["status"] == "active"
    assert cli(settings, "watch", "remove", "open-trail-blazer-2").returncode == 0
    left = json.loads(cli(settings, "watch", "list", "--json").stdout)["watches"]
    assert [w["id"] for w in left] == [2]


def test_a_due_watch_is_claimed_by_one_runner_only(settings: Settings) -> None:
    """Two runners (the console and a timer) that both found a watch due: the first to
    claim it checks it, the other finds it taken."""
    store = Store.of(open_store(settings))
    watch, _ = new_watch(store, settings, "open Trail Blazer 2", "15m", None, None, None)
    at = now_utc()
    second = replace(watch)  # the row as the second runner read it
    assert claim(store, watch, at + PERIOD)
    assert not claim(store, second, at + PERIOD)
    assert find_watch(store, watch.name).next_at == watch.next_at == at + PERIOD


def test_a_watch_followed_in_the_terminal_ends_when_its_condition_holds(
    settings: Settings, demo: DemoSite
) -> None:
    """No --detach: the watch is checked here (the planner, as no skill takes it) until
    the condition holds; its history says so. The condition is the README's example's: on
    the demo shop it ends."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    (condition,) = re.findall(r'watch "open Trail Blazer 2" .*--until "([^"]+)"', readme)
    done = cli(
        settings,
        "watch",
        "open Trail Blazer 2",
        "--url",
        f"{demo.url}/",
        "--every",
        "1s",
        "--until",
        condition,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    (check,) = shown["checks"]
    assert (check["status"], check["held"], check["extracted"]) == (
        "succeeded",
        True,
        {"price": 89.0},
    )
    history = cli(settings, "watch", "history", shown["watch"]["name"])
    assert f"condition holds ({condition})" in history.stdout
    listed = json.loads(cli(settings, "watch", "list", "--json").stdout)["watches"]
    assert [(w["status"], w["checks"]) for w in listed] == [("done", 1)]


def test_run_due_exits_1_when_a_check_failed_and_0_when_none_is_due(settings: Settings) -> None:
    down = f"http://127.0.0.1:{closed_port()}/"
    added = cli(settings, "watch", "open the status page", "--url", down, "--detach")
    assert added.returncode == 0, added.stderr
    failed = cli(settings, "watch", "run-due", "--json")
    assert failed.returncode == 1, failed.stderr
    (check,) = json.loads(failed.stdout)["checks"]
    assert (check["watch"], check["status"]) == ("open-the-status-page", "failed")
    assert "open-the-status-page" in failed.stderr
    nothing = cli(settings, "watch", "run-due")
    assert (nothing.returncode, nothing.stdout.strip()) == (0, "No watch is due.")
