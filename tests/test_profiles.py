"""Logins that last: a named profile keeps cookies and storage between runs in the
workspace, a Playwright storage-state file starts a run logged in, and neither the
profile's cookies nor a malformed file's contents reach a log, the store or the output.

The end-to-end tests drive the real CLI (the offline planner) in a real Chromium on the
demo shop, whose login sets a random session cookie."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from browser_agent.browser.session import browser_session
from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.server import DEMO_PASSWORD
from browser_agent.settings import Settings
from browser_agent.storage_state import (
    ProfileError,
    profile_path,
    read_storage_state,
    write_storage_state,
)

LOGIN = "log in as demo with password {DEMO_PW}"
ACCOUNT = "open the account page"


def cli(settings: Settings, *args: str):  # type: ignore[no-untyped-def]
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000",
        "SHOP_PW": DEMO_PASSWORD,
    }
    return CliRunner().invoke(app, list(args), env=environ)


def run_json(settings: Settings, *args: str) -> dict:
    done = cli(settings, "run", *args, "--json")
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return json.loads(done.stdout)


def log_in(settings: Settings, demo: DemoSite, *options: str) -> dict:
    secret = ("--secret", "DEMO_PW=env:SHOP_PW")
    return run_json(settings, LOGIN, "--url", f"{demo.url}/login", *secret, *options)


def logged_in(demo: DemoSite) -> dict:
    """A storage state holding the demo shop's login, in Playwright's format."""
    cookie = {"name": "session", "value": demo.session_token, "domain": "127.0.0.1", "path": "/"}
    return {"cookies": [cookie], "origins": []}


def tools_of(settings: Settings, run_id: str) -> list[dict]:
    """The tool calls of a run's chat log."""
    log = json.loads((settings.logs_dir / f"{run_id}.json").read_text())
    return [call["function"] for m in log for call in m.get("tool_calls") or []]


def test_a_login_kept_in_a_profile_lets_the_next_run_in_without_typing(
    settings: Settings, demo: DemoSite
) -> None:
    first = log_in(settings, demo, "--profile", "shop")
    assert first["final_url"] == f"{demo.url}/account"
    kept = profile_path(settings.workspace, "shop")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700

    second = run_json(settings, ACCOUNT, "--url", f"{demo.url}/account", "--profile", "shop")
    assert (second["status"], second["final_url"]) == ("succeeded", f"{demo.url}/account")
    assert not [t for t in tools_of(settings, second["run_id"]) if t["name"] == "enter_text"]

    without = run_json(settings, ACCOUNT, "--url", f"{demo.url}/account")
    assert without["status"] == "failed"  # no profile: a fresh browser, sent to log in
    assert without["final_url"] != f"{demo.url}/account"

    shown = cli(settings, "show", second["run_id"]).output + cli(settings, "runs").output
    for path in settings.workspace.rglob("*"):
        if path.is_file() and path != kept:
            assert demo.session_token.encode() not in path.read_bytes(), path
    assert demo.session_token not in shown
    assert demo.session_token in kept.read_text()


def test_a_storage_state_file_starts_a_run_logged_in_and_is_left_as_it_was(
    settings: Settings, demo: DemoSite, tmp_path_factory: pytest.TempPathFactory
) -> None:
    state = logged_in(demo)
    given = tmp_path_factory.mktemp("state") / "state.json"
    given.write_text(json.dumps(state))

    done = run_json(
        settings, ACCOUNT, "--url", f"{demo.url}/account", "--storage-state", str(given)
    )
    assert (done["status"], done["final_url"]) == ("succeeded", f"{demo.url}/account")
    assert json.loads(given.read_text()) == state
    assert not (settings.workspace / "profiles").exists()  # no profile named: none written


@pytest.mark.asyncio(loop_scope="session")
async def test_replays_start_from_the_profile_and_leave_it_as_it_was(
    settings: Settings, demo: DemoSite, browser: Browser
) -> None:
    """Validation and routed skills open their contexts through browser_session: with a
    profile set they are logged in; only a run saves the profile back."""
    kept = profile_path(settings.workspace, "shop")
    write_storage_state(kept, logged_in(demo))
    before = kept.read_bytes()
    async with browser_session(settings.with_overrides(profile="shop"), browser) as active:
        await active.page.goto(f"{demo.url}/account")
        assert active.page.url == f"{demo.url}/account"
        await active.context.clear_cookies()
    assert kept.read_bytes() == before


@pytest.mark.parametrize(
    "name", ["../escape", "a/b", "/etc/passwd", ".hidden", "two\nlines", "x" * 65, "sp ace"]
)
def test_a_bad_profile_name_is_one_line_with_exit_code_2(settings: Settings, name: str) -> None:
    for command in (["run", ACCOUNT], ["validate", "--all"]):
        done = cli(settings, *command, "--profile", name)
        assert done.exit_code == 2, done.output
        assert "Traceback" not in done.output
        assert len(done.output.strip().splitlines()) == 1
        assert "profile name" in done.output
    assert not (settings.workspace / "profiles").exists()
    assert not list(settings.workspace.parent.glob("escape*"))


@pytest.mark.parametrize(
    "content",
    [
        "{not json TOKEN-9f8e7d",
        json.dumps({"cookies": [{"name": "sid", "value": "TOKEN-9f8e7d"}], "origins": []}),
        json.dumps({"cookies": [], "origins": [{"origin": "TOKEN-9f8e7d"}]}),
        json.dumps(["TOKEN-9f8e7d"]),
    ],
)
def test_a_malformed_storage_state_is_refused_in_one_line_showing_none_of_it(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory, content: str
) -> None:
    bad = tmp_path_factory.mktemp("state") / "state.json"
    bad.write_text(content)
    with pytest.raises(ProfileError) as refused:
        read_storage_state(bad)
    assert "TOKEN-9f8e7d" not in str(refused.value)
    done = cli(settings, "run", ACCOUNT, "--storage-state", str(bad))
    assert done.exit_code == 2
    assert len(done.output.strip().splitlines()) == 1, done.output
    assert "storage state" in done.output and "TOKEN-9f8e7d" not in done.output


def test_a_missing_storage_state_file_is_one_line(settings: Settings, tmp_path: Path) -> None:
    done = cli(settings, "run", ACCOUNT, "--storage-state", str(tmp_path / "none.json"))
    assert done.exit_code == 2
    assert "the storage state" in done.output and "cannot be read" in done.output
    assert len(done.output.strip().splitlines()) == 1
