"""Importing the command line loads only what every command needs: the harvester (and
libcst), the model client (and openai) and the store's migrations (alembic) load in the
commands that use them, so `--help` and a routed run start fast."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from browser_agent.browser.driver import playwright_driver
from browser_agent.demo_site.server import start_demo_site

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
HEAVY = ("libcst", "openai", "alembic", "sqlmodel", "playwright", "pydantic_settings")
LOADED = (
    "import browser_agent.cli.app, sys; "
    f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY + ('browser_agent',)!r}))"
)


def test_importing_the_cli_loads_neither_the_harvester_nor_the_model_client() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(ast.literal_eval(done.stdout.strip()))
    assert "browser_agent.cli.app" in loaded
    for module in ("browser_agent.plans.codegen", "browser_agent.harvest.harvester"):
        assert module not in loaded
    for package in HEAVY:
        assert not any(m.split(".")[0] == package for m in loaded), package


def test_help_answers_and_lists_every_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "browser_agent.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for command in ("run", "harvest", "validate", "skills", "memory", "db", "dom", "info"):
        assert f" {command} " in done.stdout, command


def test_a_routed_run_loads_no_model_client_and_no_orm(tmp_path: Path) -> None:
    """A command routed to a skill calls no model, so neither the offline planner nor
    openai (nor the harvester's code generator, nor any other command's module) is
    imported; it writes its rows to the current SQLite store with sqlite3, so neither is
    SQLAlchemy; the run still succeeds. The
    command ends with its store closed: no write-ahead log is left beside the SQLite file
    (the process skips the collector at exit, which would otherwise have closed it)."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        import bench_replay  # the benchmark's workspace: one harvested search-and-sort skill
    finally:
        sys.path.remove(str(SCRIPTS))
    with start_demo_site(port=0) as site:
        shop = f"{site.url}/"
        bench_replay.prepare(tmp_path / "workspace", shop)
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "browser_agent.cli"]
            + ["--workspace", str(tmp_path / "workspace"), "run", bench_replay.COMMAND]
            + ["--url", shop, "--json"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=without_compile_cache(XDG_CACHE_HOME=str(tmp_path / "cache")),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "succeeded" and result["llm_calls"] == 0
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "browser_agent.browser.early" in imported  # the list is the run's real imports
    for module in (
        "openai",
        "libcst",
        "sqlalchemy",
        "sqlmodel",
        "browser_agent.llm.offline",
        "browser_agent.plans.codegen",
        "genai_prices",  # a run that called no model costs nothing: no price map to load
        "rich",  # it answers in JSON: nothing is drawn on a terminal
        "browser_agent.cli.harvest",  # only the command it runs is built
        "browser_agent.skills.replay",  # replays are validation's; its login was not renewed
        "browser_agent.memory.context",  # no model was asked: no history to fit
        "browser_agent.cli.info",  # the version is read only for --version
    ):
        assert module not in imported, module
    assert (tmp_path / "workspace" / "browser_agent.db").is_file()
    assert not (tmp_path / "workspace" / "browser_agent.db-wal").exists()
    # Playwright's driver kept its compiled code in the user's cache folder
    assert list((tmp_path / "cache" / "browser-agent" / "node-compile-cache").iterdir())


def without_compile_cache(**variables: str) -> dict[str, str]:
    """This environment with ``variables`` and no NODE_COMPILE_CACHE of its own."""
    env = {name: value for name, value in os.environ.items() if name != "NODE_COMPILE_CACHE"}
    return {**env, **variables}


def test_a_compile_cache_folder_already_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_COMPILE_CACHE", "/somewhere/of/my/own")
    playwright_driver()  # not started: only the folder is chosen
    assert os.environ["NODE_COMPILE_CACHE"] == "/somewhere/of/my/own"


def imported_by(arguments: list[str], workspace: Path) -> tuple[set[str], str]:
    """The modules ``browser-agent ARGUMENTS`` imports (``-X importtime``), and its output."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "browser_agent.cli"]
        + ["--workspace", str(workspace), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return imported, done.stdout


def test_help_loads_neither_the_settings_nor_the_store(tmp_path: Path) -> None:
    imported, _ = imported_by(["--help"], tmp_path)
    assert "browser_agent.cli.group" in imported  # the list is the command's real imports
    for module in ("pydantic", "browser_agent.settings", "browser_agent.store.connection"):
        assert module not in imported, module


@pytest.mark.parametrize("command", ["runs", "skills"])
def test_listing_a_current_store_loads_no_orm(tmp_path: Path, command: str) -> None:
    """``runs`` and ``skills`` read a store at the head revision with its driver alone, as a
    routed run does: neither SQLAlchemy nor the ORM's tables, nor the harvester or a model
    client, are imported."""
    imported_by(["db", "upgrade"], tmp_path)  # the store made and migrated (with alembic)
    imported, output = imported_by([command, "--json"], tmp_path)
    assert "browser_agent.store.run_store" in imported
    assert json.loads(output)[command] == []
    for module in (
        "sqlalchemy",
        "sqlmodel",
        "alembic",
        "libcst",
        "openai",
        "playwright",
        "browser_agent.store.models",
        "browser_agent.plans.plan",
    ):
        assert module not in imported, module
