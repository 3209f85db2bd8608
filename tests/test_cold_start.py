"""Importing the command line loads only what every command needs: the harvester (and
libcst), the model client (and openai) and the store's migrations (alembic) load in the
commands that use them, so `--help` and a routed run start fast."""

from __future__ import annotations

import ast
import subprocess
import sys

HEAVY = ("libcst", "openai", "alembic", "sqlmodel", "playwright", "pydantic_settings")
LOADED = (
    "import browser_agent.cli, sys; "
    f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY + ('browser_agent',)!r}))"
)


def test_importing_the_cli_loads_neither_the_harvester_nor_the_model_client() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(ast.literal_eval(done.stdout.strip()))
    assert "browser_agent.cli" in loaded
    for module in ("browser_agent.harvest.codegen", "browser_agent.harvest.harvester"):
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
