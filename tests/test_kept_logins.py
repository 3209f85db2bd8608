"""Logins kept and renewed: a login solved by the planner becomes the site's login skill and
its session is kept in the profile; when the kept session expired, a routed skill that meets
the login page logs in again through that skill (no model call), saves the new session and
does its task from the start. Per-request tokens (the CSRF token in every form, the nonce in
the landing page's URL) are never kept in a skill, and a URL carrying one is not replayed.

End to end through the real CLI (the offline planner) in a real Chromium, on a small notes
site of the tests' own (tests/login_site.py), whose state says what was done."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.harvest.without_tokens import without_tokens
from browser_agent.plans.plan import ElementRecord, Param, PlannedStep, SkillPlan
from browser_agent.settings import Settings
from browser_agent.sites.request_tokens import is_token, refused_url, strip_tokens
from browser_agent.skills.logins import is_login_skill, relogin
from browser_agent.skills.replay import replay
from browser_agent.storage_state import profile_path
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import current_skills
from tests.conftest import settings_in
from tests.login_site import PASSWORD, USER, NotesSite

pytest_plugins = ["pytester"]

LOGIN = f"log in as {USER} with password {{NOTES_PW}}"
NOTE = "type {title} into the title field and click save"


@pytest.fixture
def site() -> Iterator[NotesSite]:
    with NotesSite() as running:
        yield running


@dataclass(frozen=True)
class Learned:
    """A workspace where the login and the note task were each solved once by the planner
    and harvested, on ``site``; ``said``, the outputs of those commands."""

    settings: Settings
    site: NotesSite
    said: list[str]


@pytest.fixture(scope="module")
def learned_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Learned]:
    """The login and the note task learned once for the module (the skills keep the site's
    address, so its site serves every test that starts from them)."""
    with NotesSite() as running:
        settings = settings_in(tmp_path_factory.mktemp("learned"))
        yield Learned(settings, running, learn(settings, running))


@pytest.fixture
def learned(learned_once: Learned, tmp_path: Path) -> Learned:
    """A copy of the learned workspace of this test's own, and the site with no notes saved
    and its note form as it was."""
    shutil.copytree(learned_once.settings.workspace, tmp_path / "learned")
    site = learned_once.site
    site.notes.clear()
    site.renamed = False
    return Learned(settings_in(tmp_path / "learned"), site, learned_once.said)


def cli(settings: Settings, *args: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
    environ = {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "COLUMNS": "300",  # the report is asserted line by line
        "BROWSER_AGENT_LLM_MODEL": "offline",
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000",
        "BROWSER_AGENT_PROFILE": "notes",
        "BROWSER_AGENT_SECRET_NOTES_PW": password,
    }
    done = CliRunner().invoke(app, list(args), env=environ)
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return done


def run(settings: Settings, command: str, url: str) -> dict:
    return json.loads(cli(settings, "run", command, "--url", url, "--json").stdout)


def learn(settings: Settings, site: NotesSite) -> list[str]:
    """The login and the note task, each solved once by the planner and harvested; the
    outputs of every command."""
    said = []
    login = run(settings, LOGIN, f"{site.url}/login")
    assert login["status"] == "succeeded" and site.logins == 1
    said.append(cli(settings, "harvest", "--all").output)  # its replay logs in once more
    logins = site.logins
    note = run(settings, NOTE.format(title="Groceries"), f"{site.url}/notes/new")
    assert note["status"] == "succeeded" and note["llm_calls"] > 0
    assert site.logins == logins  # the profile kept the login: no form typed this time
    said.append(cli(settings, "harvest", "--all").output)
    return said


def skills(settings: Settings) -> list[SkillRow]:
    """The current skills of the workspace's store."""
    engine = open_store(settings)
    try:
        return current_skills(engine)
    finally:
        engine.dispose()


def login_uses(settings: Settings) -> int:
    """How many uses the store counts for the site's login skill."""
    (login,) = [s for s in skills(settings) if is_login_skill(s)]
    return login.uses


def skill_texts(settings: Settings) -> str:
    """Everything a skill keeps: its generated modules and its store rows."""
    modules = [p.read_text() for p in (settings.workspace / "skills").rglob("*.py")]
    rows = [json.dumps(row.__dict__, default=str) for row in skills(settings)]
    return "\n".join([*modules, *rows])


def test_an_expired_session_is_renewed_through_the_login_skill_with_no_model_call(
    learned: Learned,
) -> None:
    settings, site, said = learned.settings, learned.site, learned.said
    statuses = {s.name: s.status for s in skills(settings)}
    assert sorted(statuses.values()) == ["healthy", "healthy"], (statuses, said)

    site.expire_sessions()
    logins, used = site.logins, login_uses(settings)
    renewed = run(settings, NOTE.format(title="Laundry"), f"{site.url}/notes/new")
    assert (renewed["status"], renewed["llm_calls"]) == ("succeeded", 0), renewed
    assert "logged in again" in renewed["answer"]
    assert site.logins == logins + 1 and site.notes[-1] == "Laundry"  # the site's own state
    assert login_uses(settings) == used + 1  # the renewal is a use of the login skill

    kept = profile_path(settings.workspace, "notes").read_text()
    assert any(sid in kept for sid in site.sessions)  # the renewed session is the kept one
    again = run(settings, NOTE.format(title="Dishes"), f"{site.url}/notes/new")
    assert (again["status"], again["llm_calls"], site.logins) == ("succeeded", 0, logins + 1)
    assert site.notes[-1] == "Dishes"

    site.expire_sessions()  # a nightly validation on an expired profile logs in and passes
    validated = cli(settings, "validate", "--all")
    assert validated.exit_code == 0, validated.output
    assert site.logins > logins + 1 and {s.status for s in skills(settings)} == {"healthy"}
    assert profile_path(settings.workspace, "notes").read_text() == kept  # left as it was

    kept_in_skills = skill_texts(settings)
    assert "/home" in kept_in_skills  # the landing page is kept, its nonce is not
    assert not [value for value in site.issued() if value in kept_in_skills]
    everything = [p.read_bytes() for p in settings.workspace.rglob("*") if p.is_file()]
    assert not [b for b in everything if PASSWORD.encode() in b]
    assert PASSWORD not in json.dumps([said, renewed, again])


def test_without_its_secret_the_expired_login_is_said_and_nothing_is_typed(
    learned: Learned,
) -> None:
    settings, site = learned.settings, learned.site
    site.expire_sessions()
    logins = site.logins
    done = cli(
        settings, "run", NOTE.format(title="Laundry"), "--url", f"{site.url}/notes/new",
        "--json", password="",
    )  # fmt: skip
    log = (settings.logs_dir / f"{json.loads(done.stdout)['run_id']}.json").read_text()
    assert "needs the secret NOTES_PW" in log
    assert site.logins == logins and "Laundry" not in site.notes
    assert {s.status for s in skills(settings)} == {"healthy"}  # not its fault


def test_a_replay_that_logs_in_again_keeps_no_secret_in_its_trace(
    learned: Learned, tmp_path: Path
) -> None:
    settings, site = learned.settings, learned.site
    site.expire_sessions()
    site.renamed = True  # the note skill fails after logging in again: its trace is kept
    logins, engine = site.logins, open_store(settings)
    try:
        (note,) = [s for s in current_skills(engine) if not is_login_skill(s)]
        replayed = replay(
            note,
            settings.with_overrides(profile="notes"),
            secrets={"NOTES_PW": PASSWORD},
            trace_path=tmp_path / "trace.zip",
            relogin=relogin(Store.of(engine)),
        )
        outcome = asyncio.run(replayed)  # the CLI above runs its own event loop
    finally:
        engine.dispose()
    assert not outcome.passed and site.logins > logins, outcome  # logged in to replay again
    assert outcome.trace is not None
    with zipfile.ZipFile(outcome.trace) as trace:
        held = b"".join(trace.read(name) for name in trace.namelist())
    assert b"/notes/new" in held and PASSWORD.encode() not in held


def test_a_planner_run_that_meets_the_expired_login_logs_in_first(
    settings: Settings, site: NotesSite
) -> None:
    assert run(settings, LOGIN, f"{site.url}/login")["status"] == "succeeded"
    cli(settings, "harvest", "--all")
    site.expire_sessions()
    logins = site.logins
    done = run(settings, NOTE.format(title="Chores"), f"{site.url}/notes/new")  # no skill yet
    assert done["status"] == "succeeded", done
    assert site.logins == logins + 1 and site.notes[-1] == "Chores"


@pytest.mark.parametrize(
    ("name", "value", "token"),
    [
        ("_wpnonce", "3f9a1c2b7d", True),
        ("__FORM_TOKEN", "abc", True),
        ("csrf", "x1", True),
        ("nonce", "0123456789abcdef0123", True),
        ("id", "9f86d081884c7d659a2feaa0c55ad015", True),  # long hex
        ("state", "Zk3Hq0pLm9Rt7Vw2Xy5Ab8Cd", True),  # long random letters and digits
        ("page", "VelvetTundraGw57", False),  # a value a person would type
        ("q", "trail shoes", False),
        ("id", "42", False),
    ],
)
def test_token_like_query_values(name: str, value: str, token: bool) -> None:
    assert is_token(name, value) is token


def test_a_token_the_command_names_is_a_value_and_the_rest_of_a_url_stays() -> None:
    value = "0123456789abcdef0123"
    assert not is_token("id", value, f"open the ticket {value}")
    assert strip_tokens("http://h/p?a=1&_wpnonce=ab12&b=2") == "http://h/p?a=1&b=2"
    assert strip_tokens("http://h/p?a=1") == "http://h/p?a=1"
    assert refused_url("http://h/wp-admin/post.php?action=trash&_wpnonce=ab12", first=True) is None
    said = refused_url("http://h/wp-admin/post.php?action=trash&_wpnonce=ab12", first=False)
    assert said is not None and "_wpnonce" in said and "ab12" not in said


def _log(path: Path, command: str, calls: list[tuple[str, dict, str]]) -> Path:
    """A chat log of ``calls`` (name, arguments, response), ending with finish."""
    messages: list[dict] = [{"role": "user", "content": f'Execute the user task "{command}"'}]
    for index, (name, arguments, response) in enumerate(calls, 1):
        call = {"id": f"c{index}", "type": "function"}
        call["function"] = {"name": name, "arguments": json.dumps(arguments)}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{index}", "content": response})
    messages.append({"role": "assistant", "content": "Done ##TERMINATE##"})
    path.write_text(json.dumps(messages))
    return path


def test_a_url_with_a_nonce_is_not_replayed_and_a_hidden_field_is_never_typed(
    settings: Settings, tmp_path: Path
) -> None:
    nonce = "5e884898da28047151d0e56f8dc62927"
    url = "http://127.0.0.1:9/"
    opened = _log(
        tmp_path / "opened.json",
        "trash the post",
        [
            ("open_url", {"url": f"{url}posts"}, f"Page loaded: {url}posts"),
            (
                "open_url",
                {"url": f"{url}post?action=trash&_wpnonce={nonce}"},
                f"Page loaded: {url}post?action=trash&_wpnonce={nonce}",
            ),
        ],
    )
    tag = f'<input type="hidden" name="csrf_token" value="{nonce}" mmid="4">'
    typed = _log(
        tmp_path / "typed.json",
        "send the form",
        [
            ("open_url", {"url": f"{url}form"}, f"Page loaded: {url}form"),
            ("enter_text", {"selector": "[mmid='4']", "text": nonce}, f"Text entered in {tag}."),
        ],
    )
    report = cli(settings, "harvest", str(opened), str(typed), "--no-verify").output
    assert "would replay its per-request token (_wpnonce)" in report, report
    assert "hidden field 'csrf_token'" in report, report
    assert nonce not in report
    assert not list((settings.workspace / "skills").rglob("*.py"))


def test_the_links_a_plan_keeps_lose_their_tokens() -> None:
    nonce = "5e884898da28047151d0e56f8dc62927"
    link = ElementRecord(
        "text=Trash", "link", "Trash", "a", attributes={"href": f"/post?id=7&_wpnonce={nonce}"}
    )
    start = Param("start_url", "", f"http://127.0.0.1:9/posts?token={nonce}")
    plan = SkillPlan(
        command="trash the post",
        template="trash the post",
        params=[start],
        steps=[
            PlannedStep("open_url", {"url": start}),
            PlannedStep("click", {"selector": "text=Trash"}, {"selector": link}),
        ],
        start_url=start.example,
        end_url=f"http://127.0.0.1:9/posts?trashed=1&_wpnonce={nonce}",
        ended_because="the run ended",
        source="test",
    )
    kept = without_tokens(plan)
    assert nonce not in json.dumps(
        [kept.start_url, kept.end_url, start.example, start.said, link.attributes]
    )
    assert link.attributes["href"] == "/post?id=7"
    assert kept.end_url == "http://127.0.0.1:9/posts?trashed=1"


def test_the_pytest_plugins_replay_renews_an_expired_session(
    learned: Learned, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skill's test in a project's pytest run meets the login page once the kept session
    expired: it logs in through the site's login skill and passes, as validation does."""
    settings, site = learned.settings, learned.site
    site.expire_sessions()
    logins = site.logins
    for name, value in {
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000",
        "BROWSER_AGENT_PROFILE": "notes",
        "BROWSER_AGENT_SECRET_NOTES_PW": PASSWORD,
    }.items():
        monkeypatch.setenv(name, value)
    result = pytester.runpytest_subprocess(
        "-v", "-p", "browser_agent.testing", "--harvested-skills", timeout=300
    )
    passed = re.findall(r"^harvested-skills::(\S+) PASSED", result.stdout.str(), re.M)
    assert len(passed) == 2 and result.ret == 0, result.stdout.str()
    assert site.logins > logins
    assert any(note.startswith("Groceries") for note in site.notes), site.notes  # replayed
