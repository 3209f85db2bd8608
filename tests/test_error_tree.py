"""One error tree: every exception the package defines is a BrowserAgentError, and the
mistakes a person fixes are UserErrors, which the command line says in one line, exit 2."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.errors import BrowserAgentError, UserError
from tests.package_files import package_modules


def defined_exceptions() -> list[type[BaseException]]:
    """The exception classes each module of the package defines itself."""
    found = []
    for name in package_modules():
        if name.endswith(".__main__"):
            continue
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and value.__module__ == module.__name__
        ]
    return found


def test_every_exception_of_the_package_is_one_of_its_errors() -> None:
    found = defined_exceptions()
    assert len(found) >= 30
    assert [e.__qualname__ for e in found if not issubclass(e, BrowserAgentError)] == []


def test_the_mistakes_a_person_fixes_are_user_errors() -> None:
    from browser_agent.cluster.batch_file import BatchFileError
    from browser_agent.errors import NoBrowser
    from browser_agent.secrets import SecretError
    from browser_agent.settings import SettingsError
    from browser_agent.store.errors import StoreError

    for error in (BatchFileError, NoBrowser, SecretError, SettingsError, StoreError):
        assert issubclass(error, UserError), error


def test_a_user_error_is_one_line_with_exit_code_2(tmp_path: Path) -> None:
    batch = tmp_path / "commands.txt"
    batch.write_text("", encoding="utf-8")  # no command in it: the batch file's mistake
    done = CliRunner().invoke(app, ["batch", str(batch)])
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output
    assert len(done.output.strip().splitlines()) == 1
