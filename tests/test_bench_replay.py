"""scripts/bench_replay.py runs end to end: a routed run (checked to make no LLM call) and
the hand-written Playwright script, each timed, their CPU split by process; no claim on
the times themselves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_replay.py"


def test_the_benchmark_times_the_routed_run_and_the_script_by_hand() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "1", "--by-process"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("routed run (browser-agent run)") for line in lines)
    assert any(line.startswith("hand-written Playwright") for line in lines)
    assert any(line.startswith("ratio product / hand-written") for line in lines)
    assert lines[-3].split() == ["python", "driver", "chromium"]
    for line, label in zip(lines[-2:], ("routed run", "hand-written"), strict=True):
        assert line.startswith(label)
        assert all(float(cell) > 0 for cell in line[len(label) :].split())  # each one sampled
