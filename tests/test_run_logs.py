"""Chat logs kept in the store: a run made in one workspace (a cluster worker on another
machine) is shown and harvested from another workspace sharing only the store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from playwright.async_api import Browser
from sqlalchemy import Engine
from sqlmodel import Session, select

from browser_agent.demo_site import DemoSite
from browser_agent.planner.records import RunRecorder
from browser_agent.settings import Settings
from browser_agent.store.connection import Store, sqlite_connection
from browser_agent.store.db import open_store
from browser_agent.store.models import Run, RunLog
from browser_agent.store.run_logs import log_file
from tests.skill_workspaces import LOG_IN, SEARCH, run_offline, workspace_settings

PASSWORD = "secret123"  # the one LOG_IN types


def console_run_page(here: Settings, run_id: str) -> str:
    """The web console's page of a run, as the console of ``here`` serves it."""
    from starlette.testclient import TestClient

    from browser_agent.console.app import create_app

    app = create_app(here, open_store(here), "token", make_llm=lambda: None)  # type: ignore[arg-type,return-value]
    with TestClient(app, base_url="http://127.0.0.1") as client:
        page = client.get(f"/runs/{run_id}", headers={"Authorization": "Bearer token"})
    assert page.status_code == 200
    return page.text


def cli(here: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """browser-agent in the workspace ``here``, on its store."""
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(here.workspace),
        "BROWSER_AGENT_DATABASE_URL": here.db_url,
        "COLUMNS": "200",
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


async def test_a_run_made_elsewhere_is_shown_and_harvested_from_the_store(
    tmp_path: Path, postgres_url: str, browser: Browser, demo: DemoSite
) -> None:
    worker = workspace_settings(tmp_path / "worker").with_overrides(
        database_url=postgres_url, logs_in_store=True
    )
    engine = open_store(worker)
    search = await run_offline(*SEARCH, worker, engine, browser, demo)
    login = await run_offline(*LOG_IN, worker, engine, browser, demo)
    assert (search.status, login.status) == ("succeeded", "succeeded")
    here = workspace_settings(tmp_path / "here").with_overrides(database_url=postgres_url)

    shown = cli(here, "show", search.run_id, "--json")
    assert shown.returncode == 0, shown.stderr
    log = Path(json.loads(shown.stdout)["log"])
    assert log.is_relative_to(here.workspace)
    assert log.read_text(encoding="utf-8") == Path(search.log_path).read_text(encoding="utf-8")

    page = console_run_page(here, search.run_id)
    assert "The chat log could not be read" not in page
    assert "The iteration records could not be read" not in page
    assert "call 1 (" in page  # the model calls the run made, from the store's records

    drafted = cli(here, "harvest", search.run_id, "--dry-run", "--json")
    assert drafted.returncode == 0, drafted.stderr
    assert json.loads(drafted.stdout)["counts"] == {"new skill": 1}
    every = cli(here, "harvest", "--all", "--dry-run", "--json")  # the login's log too
    assert every.returncode == 0, every.stderr
    assert "failed" not in json.loads(every.stdout)["counts"]
    assert (here.logs_dir / f"{login.run_id}.json").is_file()

    with Session(engine) as db:
        kept = db.exec(select(RunLog)).all()
    assert {row.run_id for row in kept} == {search.run_id, login.run_id}
    for row in kept:  # one record per model call, masked as the files are
        iterations = Path(worker.logs_dir / f"{row.run_id}.iterations.jsonl")
        assert row.iterations == iterations.read_text(encoding="utf-8") != ""
        assert PASSWORD not in row.log + row.meta + row.iterations
    assert PASSWORD in LOG_IN[0]  # (the command said it)


async def test_without_the_setting_the_log_stays_on_the_machine_that_made_it(
    tmp_path: Path, postgres_url: str, browser: Browser, demo: DemoSite
) -> None:
    worker = workspace_settings(tmp_path / "worker").with_overrides(database_url=postgres_url)
    engine = open_store(worker)
    search = await run_offline(*SEARCH, worker, engine, browser, demo)
    here = workspace_settings(tmp_path / "here").with_overrides(database_url=postgres_url)

    with Session(engine) as db:
        assert db.exec(select(RunLog)).all() == []
    assert "The chat log could not be read" in console_run_page(here, search.run_id)
    refused = cli(here, "harvest", search.run_id, "--no-verify")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr + refused.stdout


def run_kept_elsewhere(settings: Settings, run_id: str) -> tuple[Engine, Run]:
    """A run whose log file is on no disk here, only its (empty) copy in the store."""
    engine = open_store(settings)
    run = Run(id=run_id, command="x", log_path="logs/elsewhere.json")
    with Session(engine, expire_on_commit=False) as db:
        db.add(run)
        db.add(RunLog(run_id=run.id, log="[]", meta="{}"))
        db.commit()
    return engine, run


def test_a_kept_log_whose_run_id_is_no_plain_name_is_not_written(settings: Settings) -> None:
    """The run id names the file written from the store: one that would climb out of
    ``logs/`` is not used."""
    engine, run = run_kept_elsewhere(settings, "../../escaped")
    path = log_file(engine, run, settings.workspace)
    assert not path.exists()
    assert not (settings.workspace.parent / "escaped.json").exists()
    assert list(settings.workspace.rglob("*.json")) == []


def test_a_kept_log_that_cannot_be_written_here_is_left_unread(settings: Settings) -> None:
    """A workspace whose logs folder cannot be made: the log is not read, nothing raises."""
    engine, run = run_kept_elsewhere(settings, "20261201-000000-abcdef")
    (settings.workspace / "logs").write_text("not a folder")
    assert not log_file(engine, run, settings.workspace).exists()


def test_a_secret_learnt_late_is_masked_in_the_stored_records_too(settings: Settings) -> None:
    """A password known only once typed is masked after the fact in the iteration records
    the store keeps, as in the file."""
    engine = open_store(settings)
    recorder = RunRecorder.start(
        engine, settings.logs_dir, "log in", None, "offline", log_in_store=True
    )
    recorder.add_iteration({"iteration": 1, "reasoning": "type hunter2 as the password"})
    recorder.add_iteration({"iteration": 2, "reasoning": "done"})
    with Session(engine) as db:
        kept = db.get(RunLog, recorder.run.id)
        assert kept is not None and kept.iterations.count("\n") == 2
        assert "hunter2" in kept.iterations and kept.log == "[]"  # no chat log written yet
    recorder.secrets.add("hunter2")
    recorder.finish([], "succeeded")
    with Session(engine) as db:
        kept = db.get(RunLog, recorder.run.id)
        assert kept is not None and kept.iterations.count("\n") == 2
        assert "hunter2" not in kept.iterations + kept.log + kept.meta
    assert "hunter2" not in recorder.iterations_path.read_text(encoding="utf-8")


def test_the_stored_log_grows_by_the_new_messages_and_stays_the_file(settings: Settings) -> None:
    """Each write sends the store only the messages added since the last one; the store's
    copy is the file's text, also after a secret learnt late is masked in all of it."""
    engine = open_store(settings)
    sent: list[str] = []  # each write of the run's stored log, with the values it sends

    def traced() -> sqlite3.Connection:
        connection = sqlite_connection(settings.workspace / "browser_agent.db")
        connection.set_trace_callback(
            lambda sql: (
                sent.append(sql)
                if sql.lower().startswith(("update runlog", "insert into runlog"))
                else None
            )
        )
        return connection

    store = Store(traced, "sqlite", keep=True)
    recorder = RunRecorder.start(store, settings.logs_dir, "x", None, "offline", True)
    messages: list[dict] = [{"role": "system", "content": "Be brief.\nÉtape 1"}]

    def stored() -> str:
        with Session(engine) as db:
            kept = db.get(RunLog, recorder.run.id)
            assert kept is not None
            return kept.log

    for step in range(1, 5):
        messages.append({"role": "assistant", "content": None, "tool_calls": [{"id": str(step)}]})
        page = f"typed pw{step} on a page of " + "text " * 400
        messages.append({"role": "tool", "tool_call_id": str(step), "content": page})
        recorder.write_log(messages)
        assert stored() == recorder.log_path.read_text(encoding="utf-8")
    whole = recorder.log_path.read_text(encoding="utf-8")
    assert len(sent[-1]) < len(whole) / 2  # the last write sent two messages, not the log
    recorder.write_log(messages)  # nothing new (as when the run finishes): the metadata
    assert stored() == whole and len(sent[-1]) < len(whole) / 4
    recorder.secrets.add("pw3")
    messages.append({"role": "assistant", "content": "done"})
    recorder.write_log(messages)
    assert stored() == recorder.log_path.read_text(encoding="utf-8")
    assert "pw3" not in stored() and "pw4" in stored()
