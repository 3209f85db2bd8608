"""A command line builds its group with only the command it runs (a routed run imports
neither the harvester's command nor rich), and that command behaves as in the whole group."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from browser_agent.cli.app import COMMANDS, GLOBAL_VALUES, command_line, named_command


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (["run", "search for x"], "run"),
        (["--workspace", "run", "skills"], "skills"),  # a folder named "run"
        (["--workspace=/tmp/w", "--debug", "harvest", "--all"], "harvest"),
        (["--browser-endpoint", "http://127.0.0.1:9222", "db", "upgrade"], "db"),
        (["--help"], None),
        (["--version", "run"], None),
        (["--no-such-option", "run"], None),
        (["rnu", "x"], None),  # the whole group says which commands there are
        ([], None),
    ],
)
def test_the_command_named_is_read_past_the_global_options(
    arguments: list[str], named: str | None
) -> None:
    assert named_command(arguments) == named


def test_completion_builds_the_whole_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_BROWSER_AGENT_COMPLETE", "complete_bash")
    assert named_command(["run", "x"]) is None


def test_the_global_options_that_take_a_value_are_all_known() -> None:
    group = typer.main.get_command(command_line("info"))
    taking = {
        name
        for param in group.params
        if not getattr(param, "is_flag", False)
        for name in param.opts
    }
    assert taking == set(GLOBAL_VALUES)


@pytest.mark.parametrize("name", [c[0] for c in COMMANDS])
def test_each_command_alone_answers_as_in_the_whole_group(name: str) -> None:
    runner = CliRunner()
    alone = runner.invoke(command_line(name), [name, "--help"], env={"COLUMNS": "100"})
    whole = runner.invoke(command_line(), [name, "--help"], env={"COLUMNS": "100"})
    assert alone.exit_code == whole.exit_code == 0, alone.output
    assert alone.output == whole.output
