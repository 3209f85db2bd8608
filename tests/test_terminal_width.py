"""A command's output is as wide as the terminal when it prints, whatever COLUMNS was when
the command's module was imported (a long-lived process, or a test runner, imports once);
``--help`` fills the terminal's width with whole paragraphs."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Imports the command line under a narrow COLUMNS, then harvests under a wide one.
SCRIPT = """
import os, sys
os.environ["COLUMNS"] = "40"
import browser_agent.cli.app
from typer.testing import CliRunner
done = CliRunner().invoke(
    browser_agent.cli.app.app,
    ["--workspace", sys.argv[1], "harvest", sys.argv[2]],
    env={"COLUMNS": "400"},
)
sys.stdout.write(done.output)
"""


def test_output_takes_the_width_of_the_terminal_at_print_time(tmp_path: Path) -> None:
    broken = tmp_path / ("a-log-with-a-name-long-enough-to-wrap-at-forty-columns" + ".json")
    broken.write_text("{", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "workspace"), str(broken)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert f"skipped {broken}: is not valid JSON" in done.stdout, done.stdout + done.stderr


def _description(width: int, *command: str) -> list[str]:
    """The lines of ``browser-agent COMMAND --help`` between the usage line and the first
    box, at ``width`` columns, their margins cut."""
    done = subprocess.run(
        [sys.executable, "-m", "browser_agent", *command, "--help"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "COLUMNS": str(width), "NO_COLOR": "1"},
    )  # fmt: skip
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    return [line.strip() for line in lines[start:end]]


@pytest.mark.parametrize("width", [60, 100, 200])
def test_help_paragraphs_fill_the_terminal_width(width: int) -> None:
    """A line of the help ends only where the next word would not fit, or at a paragraph's
    end: never where the docstring happened to break."""
    lines = _description(width, "run")
    text = " ".join(" ".join(lines).split())
    assert 'named in the command as {NAME}; a value the command gives after "password"' in text
    for line, after in zip(lines, lines[1:], strict=False):
        if line and after:
            assert len(line) + 1 + len(after.split()[0]) > width - 2, (line, after)
