"""scripts/bench_replay.py runs end to end: a routed run (checked to make no LLM call) and
the hand-written Playwright script, each timed, their CPU split by process; and
scripts/bench_imports.py splits what the routed run loads beyond the script by package.
No claim on the times themselves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def ran(script: str, *args: str) -> list[str]:
    """The lines ``scripts/<script>`` printed, run to its end; it must succeed."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_benchmark_times_the_routed_run_and_the_script_by_hand() -> None:
    lines = ran("bench_replay.py", "--runs", "1", "--by-process")
    assert any(line.startswith("routed run (browser-agent run)") for line in lines)
    assert any(line.startswith("hand-written Playwright") for line in lines)
    assert any(line.startswith("ratio product / hand-written") for line in lines)
    assert lines[-3].split() == ["python", "driver", "chromium"]
    for line, label in zip(lines[-2:], ("routed run", "hand-written"), strict=True):
        assert line.startswith(label)
        assert all(float(cell) > 0 for cell in line[len(label) :].split())  # each one sampled


def test_the_import_benchmark_splits_what_the_routed_run_loads_beyond_the_script() -> None:
    lines = ran("bench_imports.py", "--runs", "1")
    assert lines[1].startswith("the hand-written script's") and float(lines[1].split()[-1]) > 0
    assert lines[2].startswith("the routed run's")
    beyond = float(lines[2].split()[-1])
    packages = {line.split()[0]: float(line.split()[-1]) for line in lines[3:-1]}
    assert "browser_agent" in packages and "typer" in packages  # the command's own code
    parts = sum(packages.values()) + float(lines[-1].split()[-1])
    assert abs(parts - beyond) < 1.0  # every module counted once (rows rounded to 0.1 ms)
