"""A command's output is as wide as the terminal when it prints, whatever COLUMNS was when
the command's module was imported (a long-lived process, or a test runner, imports once)."""

import subprocess
import sys
from pathlib import Path

# Imports the command line under a narrow COLUMNS, then harvests under a wide one.
SCRIPT = """
import os, sys
os.environ["COLUMNS"] = "40"
import browser_agent.cli
from typer.testing import CliRunner
done = CliRunner().invoke(
    browser_agent.cli.app,
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
