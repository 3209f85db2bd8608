"""Secrets in addresses: a login form sent by GET puts the password in the address the
browser ends on. The value is masked wherever an address is stored or printed (the run's
rows, its answer and final address, harvested skills, validation and outcome rows, every
command's output), and the login is harvested and validated like any other.

End to end through the real CLI (the offline planner) in a real Chromium, on a tiny login
site of this file's own whose form is sent by GET."""

from __future__ import annotations

import html
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, quote, quote_plus, urlsplit

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.secrets import MASK, filled_address, masked_address, redact
from browser_agent.settings import Settings
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from tests.served_site import ServedSite

USER = "ada"
#: A space and signs a form encodes: the address holds ``Open+Sesame%2142%26``.
PASSWORD = "Open Sesame!42&"


@dataclass
class GetLoginSite(ServedSite):
    """A login page whose form is sent by GET; ``/welcome`` greets the right password."""

    logins: int = 0
    moved: bool = False  # the login page no longer shows its form (its steps are stale)

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        address = urlsplit(handler.path)
        fields = {k: v[0] for k, v in parse_qs(address.query).items()}
        if address.path == "/login":
            return _page(handler, "Log in", "<p>Sign-in has moved.</p>" if self.moved else _form())
        if address.path == "/welcome":
            if fields.get("user") != USER or fields.get("password") != PASSWORD:
                return _page(handler, "Log in", _form("Wrong password"))
            self.logins += 1
            return _page(handler, "Welcome", f"<p>Logged in as {USER}</p>")
        return _page(handler, "Not found", "<p>No such page</p>", 404)


def _form(error: str = "") -> str:
    alert = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    return (
        f'{alert}<form method="get" action="/welcome">'
        '<p><label for="user">Username</label> <input id="user" name="user"></p>'
        '<p><label for="password">Password</label> '
        '<input id="password" name="password" type="password"></p>'
        '<button id="log-in" type="submit">Log in</button></form>'
    )


def _page(handler: BaseHTTPRequestHandler, title: str, body: str, status: int = 200) -> None:
    data = f"<!doctype html><title>{title}</title><h1>{title}</h1>{body}".encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@pytest.mark.parametrize(
    "address",
    [
        "http://a.test/login?user=ada&password=hunter%202",  # query, percent-encoded
        "http://a.test/login?user=ada&password=hunter+2#top",  # as a form sends it
        "http://a.test/u/hunter%202/home",  # path
        "http://a.test/home#pw=hunter%202",  # fragment
        "http://ada:hunter%202@a.test/home",  # userinfo
    ],
)
def test_a_secret_in_any_part_of_an_address_is_masked(address: str) -> None:
    named = masked_address(address, (), {"PW": "hunter 2"})
    assert "hunter" not in named and "{PW}" in named
    typed = masked_address(address, {"hunter 2"})
    assert "hunter" not in typed and MASK in typed
    said = redact(f"Page navigated to {address}. Typed hunter 2.", set(), {"PW": "hunter 2"})
    assert "hunter" not in said and "{PW}" in said and MASK in said


def test_a_skill_sends_the_secret_its_address_names() -> None:
    kept = "/welcome?user=ada&password=%7BGET_PW%7D"
    assert (
        filled_address(kept, {"GET_PW": PASSWORD})
        == f"/welcome?user=ada&password={quote(PASSWORD, safe='')}"
    )
    assert filled_address(kept, {}) == kept  # not configured: left as it is


@pytest.fixture
def site() -> Iterator[GetLoginSite]:
    with GetLoginSite() as running:
        yield running


def cli(settings: Settings, *args: str) -> str:
    """The output of one command of the real CLI, the offline planner deciding."""
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000",
        "COLUMNS": "300",
    }
    done = CliRunner().invoke(app, list(args), env=environ)
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return done.output


#: Every form the value takes in an address or in text.
FORMS = sorted({PASSWORD, quote(PASSWORD), quote_plus(PASSWORD), quote(PASSWORD, safe="")})


def stored_texts(database: Path) -> Iterator[tuple[str, str, str]]:
    """(table, column, text) for every text value of every table of the SQLite store."""
    with sqlite3.connect(database) as db:
        tables = [row[0] for row in db.execute("select name from sqlite_master where type='table'")]
        for table in tables:
            cursor = db.execute(f'select * from "{table}"')
            names = [column[0] for column in cursor.description]
            for row in cursor:
                for name, value in zip(names, row, strict=True):
                    if isinstance(value, bytes):
                        value = value.decode("utf-8", "replace")
                    if isinstance(value, str):
                        yield table, name, value


def leaks(settings: Settings, outputs: list[str]) -> list[str]:
    """Where any form of the password is found: outputs, log files, store rows, skills."""
    found = [f"output {i}" for i, out in enumerate(outputs) if any(f in out for f in FORMS)]
    workspace = settings.workspace
    for path in [*workspace.rglob("*.json"), *workspace.rglob("*.jsonl"), *workspace.rglob("*.py")]:
        if any(form in path.read_text(encoding="utf-8") for form in FORMS):
            found.append(str(path.relative_to(workspace)))
    for database in workspace.rglob("*.db"):
        for table, column, text in stored_texts(database):
            if any(form in text for form in FORMS):
                found.append(f"{table}.{column}")
    return found


def test_a_login_sent_by_get_keeps_its_password_out_of_every_address(
    settings: Settings, site: GetLoginSite
) -> None:
    command = f"log in as {USER} with password {{GET_PW}}"
    secret = f"GET_PW={PASSWORD}"
    welcome = f"/welcome?user={USER}&password={{GET_PW}}"  # the address, as kept
    run = ["run", command, "--url", f"{site.url}/login", "--secret", secret, "--json"]
    said = [cli(settings, *run)]
    ran = json.loads(said[0])
    assert ran["status"] == "succeeded" and site.logins == 1, said[0]
    assert ran["final_url"] == f"{site.url}{welcome}" and "{GET_PW}" in ran["answer"]
    said.append(cli(settings, "harvest", "--all"))
    said.append(cli(settings, "validate", "--all", "--secret", secret))
    assert site.logins == 2 and "healthy" in said[-1], said[-1]
    (skill,) = current_skills(open_store(settings))
    assert skill.expected_end == welcome and skill.status == "healthy", said

    site.moved = True  # its steps are stale: the routed skill sends the address instead
    said.append(cli(settings, *run))
    routed = json.loads(said[-1])
    assert (routed["status"], routed["llm_calls"]) == ("succeeded", 0), said[-1]
    assert site.logins == 3 and routed["final_url"] == f"{site.url}{welcome}"
    said.append(cli(settings, "show", ran["run_id"], "--json"))
    said.append(cli(settings, "show", routed["run_id"], "--json"))
    said.append(cli(settings, "skills", "show", skill.name))
    Store.of(open_store(settings)).forget_old_versions()
    assert leaks(settings, said) == []
