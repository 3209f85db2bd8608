"""Secrets out of band: named in commands as {NAME}, typed by the primitive, and found
nowhere a person or a file could read them (stdout, --json, logs, store, skills, reports).

The end-to-end tests drive the real CLI (the offline planner and a routed skill) in a real
Chromium on the demo shop, then read every byte of the workspace for the secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.server import DEMO_PASSWORD
from browser_agent.harvest.calls import Call
from browser_agent.harvest.logs import typed_passwords
from browser_agent.llm.types import LLMReply
from browser_agent.secrets import (
    SecretError,
    filled,
    from_environment,
    from_options,
    masked_command,
    missing,
)
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.testing.openai_server import start_test_llm_server
from tests.scripted import Script, mmid, succeeded_calls

# ---- the rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "masked", "given"),
    [
        (
            "log in as demo with password Hunter2Secret",
            "log in as demo with password {PASSWORD}",
            {"PASSWORD": "Hunter2Secret"},
        ),
        (
            'sign in with passcode "two words" and PIN 4321.',
            "sign in with passcode {PASSCODE} and PIN {PIN}.",
            {"PASSCODE": "two words", "PIN": "4321"},
        ),
        (
            "set the API key to sk-live-9 then the token: abc123",
            "set the API key to sk-live-9 then the token: {TOKEN}",
            {"TOKEN": "abc123"},
        ),
        ("paste api key sk-live-9", "paste api key {API_KEY}", {"API_KEY": "sk-live-9"}),
        ("password: one, password: two", "password: {PASSWORD}, password: {PASSWORD_2}", None),
        ("type the password into the password field", None, {}),
        ("log in with password {PW}", None, {}),
    ],
)
def test_a_value_after_a_secret_word_becomes_a_placeholder(
    command: str, masked: str | None, given: dict[str, str] | None
) -> None:
    out, found = masked_command(command, {})
    assert out == (masked or command)
    if given is not None:
        assert found == given
    for value in found.values():
        assert value not in out


def test_configured_secret_values_in_the_command_become_their_placeholders() -> None:
    out, found = masked_command(
        "log in as ada, then type s3cr3t-v4lue again", {"PW": "s3cr3t-v4lue"}
    )
    assert (out, found) == ("log in as ada, then type {PW} again", {})


def test_secrets_come_from_options_and_variables() -> None:
    environ = {"BROWSER_AGENT_SECRET_demo_pw": "one", "MY_VAR": "two", "OTHER": "x"}
    assert from_environment(environ) == {"DEMO_PW": "one"}
    assert from_options(["a=b=c", "key=env:MY_VAR"], environ) == {"A": "b=c", "KEY": "two"}
    for bad, said in [
        ("novalue", "NAME=VALUE"),
        ("bad name=x", "NAME=VALUE"),
        ("k=env:UNSET_VAR", "UNSET_VAR: the variable is not set"),
        ("k=", "has no value"),
    ]:
        with pytest.raises(SecretError, match=said):
            from_options([bad], environ)


def test_placeholders_are_filled_and_an_unknown_whole_one_is_refused() -> None:
    secrets = {"PW": "v1"}
    assert filled("{pw}", secrets) == "v1"  # names match whatever their case
    assert filled("user {PW} {other}", secrets) == "user v1 {other}"  # other braces are text
    with pytest.raises(SecretError, match="BROWSER_AGENT_SECRET_TOKEN"):
        filled("{TOKEN}", secrets)
    assert missing({"a": "{TOKEN}", "b": "{pw}", "c": "plain"}, secrets) == ["TOKEN"]


# ---- end to end ------------------------------------------------------------------------

SECRET = "Hunter2Secret"


def cli(settings: Settings, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000",
        **(env or {}),
    }
    return CliRunner().invoke(app, list(args), env=environ)


def nowhere(secret: str, workspace: Path, *outputs: str) -> None:
    """``secret`` is in no file of the workspace (store and write-ahead log included) and
    in none of the outputs."""
    files = [path for path in workspace.rglob("*") if path.is_file()]
    assert any(path.suffix == ".db" for path in files)
    for path in files:
        assert secret.encode() not in path.read_bytes(), path
    for output in outputs:
        assert secret not in output


def test_a_login_failing_before_the_password_is_typed_leaves_it_nowhere(
    settings: Settings, demo: DemoSite
) -> None:
    done = cli(
        settings,
        "run",
        f"log in as demo with password {SECRET}",
        "--url",
        f"{demo.url}/product/does-not-exist",
        "--max-steps",
        "3",
    )
    assert done.exit_code == 1, done.output
    as_json = cli(
        settings, "run", f"log in as demo with password {SECRET}", "--url", f"{demo.url}/nowhere",
        "--max-steps", "3", "--json",
    )  # fmt: skip
    assert json.loads(as_json.stdout)["status"] == "failed"
    shown = cli(settings, "show", json.loads(as_json.stdout)["run_id"])
    assert "{PASSWORD}" in shown.output  # the command is kept, with its placeholder
    Store.of(open_store(settings)).forget_old_versions()
    nowhere(SECRET, settings.workspace, done.output, as_json.output, shown.output)


def test_a_secret_given_in_the_command_logs_in_and_a_routed_run_hides_it_too(
    settings: Settings, demo: DemoSite
) -> None:
    command = f"log in as demo with password {DEMO_PASSWORD}"
    learnt = cli(settings, "run", command, "--url", f"{demo.url}/login", "--json")
    result = json.loads(learnt.stdout)
    # the shop lets demo in only with the right password: the placeholder was filled
    assert result["status"] == "succeeded" and result["final_url"] == f"{demo.url}/account"
    harvested = cli(settings, "harvest", "--all")
    assert harvested.exit_code == 0, harvested.output
    engine = open_store(settings)
    (skill,) = current_skills(engine)
    assert json.loads(skill.example_args)["password"] == "{PASSWORD}"
    assert skill.status == "candidate" and "PASSWORD is not configured" in (skill.last_error or "")

    routed = cli(settings, "run", command, "--url", f"{demo.url}/login", "--json")
    result = json.loads(routed.stdout)
    assert (result["status"], result["llm_calls"]) == ("succeeded", 0), routed.output
    assert result["final_url"] == f"{demo.url}/account"
    shown = cli(settings, "skills", "show", skill.name)
    Store.of(engine).forget_old_versions()
    nowhere(DEMO_PASSWORD, settings.workspace, learnt.output, harvested.output, routed.output)
    nowhere(DEMO_PASSWORD, settings.workspace, shown.output)


def test_secret_options_fill_the_placeholder_and_bad_ones_are_one_line(
    settings: Settings, demo: DemoSite
) -> None:
    command = "log in as demo with password {DEMO_PW}"
    done = cli(
        settings,
        "run",
        command,
        "--url",
        f"{demo.url}/login",
        "--secret",
        "demo_pw=env:THE_PW",
        "--json",
        env={"THE_PW": DEMO_PASSWORD},
    )
    result = json.loads(done.stdout)
    assert result["status"] == "succeeded" and result["final_url"] == f"{demo.url}/account"
    missing_one = cli(settings, "run", command, "--url", f"{demo.url}/login", "--json")
    assert missing_one.exit_code == 2 and missing_one.output.count("\n") == 1
    assert "{DEMO_PW}, which is not configured" in missing_one.output
    bad = cli(settings, "run", command, "--secret", "DEMO_PW")
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "NAME=VALUE" in bad.output
    Store.of(open_store(settings)).forget_old_versions()
    nowhere(DEMO_PASSWORD, settings.workspace, done.output, missing_one.output)


def test_a_login_skill_validates_when_its_secret_is_configured(
    settings: Settings, demo: DemoSite
) -> None:
    command = "log in as demo with password {PASSWORD}"
    learnt = cli(
        settings,
        "run",
        command,
        "--url",
        f"{demo.url}/login",
        "--secret",
        f"PASSWORD={DEMO_PASSWORD}",
    )
    assert learnt.exit_code == 0, learnt.output
    assert cli(settings, "harvest", "--all").exit_code == 0
    engine = open_store(settings)
    (skill,) = current_skills(engine)

    unset = cli(settings, "validate", skill.name)
    assert unset.exit_code == 0
    assert "needs a secret" in unset.output and "BROWSER_AGENT_SECRET_PASSWORD" in unset.output
    wrong = cli(settings, "validate", skill.name, "--secret", "PASSWORD=not-it")
    assert wrong.exit_code == 1 and "stale" in wrong.output  # the login page stays
    right = cli(
        settings, "validate", skill.name, env={"BROWSER_AGENT_SECRET_PASSWORD": DEMO_PASSWORD}
    )
    assert right.exit_code == 0 and "healthy" in right.output, right.output
    Store.of(engine).forget_old_versions()
    nowhere(
        DEMO_PASSWORD, settings.workspace, learnt.output, unset.output, wrong.output, right.output
    )


def test_a_run_killed_right_after_typing_a_password_leaves_it_nowhere(
    settings: Settings, demo: DemoSite
) -> None:
    """The model types a password the command never named (so it is learnt only when typed)
    and the process is killed while the model thinks about the next step."""
    typed = "LiteralPw99"
    thinking, killed = threading.Event(), threading.Event()

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        if succeeded_calls(messages) >= 4:  # the password is typed: think forever
            thinking.set()
            killed.wait(30)
        return script(messages, tools)

    script = Script(
        [
            ("open_url", lambda _d: {"url": f"{demo.url}/login"}),
            ("get_dom", lambda _d: {"content_type": "input_fields"}),
            ("enter_text", lambda d: {"selector": mmid('textbox "Username"')(d), "text": "demo"}),
            ("enter_text", lambda d: {"selector": mmid('textbox "Password"')(d), "text": typed}),
        ]
    )
    with start_test_llm_server(model) as server:
        environ = {
            **os.environ,
            "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
            "BROWSER_AGENT_LLM_BASE_URL": server.base_url,
            "BROWSER_AGENT_LLM_API_KEY": "test",
            "BROWSER_AGENT_LLM_MODEL": "test-model",
        }
        command = Path(sys.executable).with_name("browser-agent")
        process = subprocess.Popen(
            [str(command), "run", "log in as demo", "--json"],
            env=environ,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert thinking.wait(60), "the run never reached its fifth model call"
        finally:
            process.kill()
            process.wait()
            killed.set()
    iterations = list(settings.workspace.rglob("*.iterations.jsonl"))
    assert iterations and "enter_text" in iterations[0].read_text()
    nowhere(typed, settings.workspace)


def test_a_placeholder_typed_into_a_password_field_is_kept_for_the_skill() -> None:
    """A typed password is masked in a log before harvest; its placeholder is not a secret
    and stays, so that the skill gets a parameter the secret fills."""
    answer = 'A password (9 characters, not shown) was entered in <input id="pw" type="password">.'
    typed = [
        Call("enter_text", {"selector": "#pw", "text": text}, answer)
        for text in ("{PASSWORD}", "Hunter2Secret")
    ]
    assert typed_passwords(typed) == {"Hunter2Secret"}
