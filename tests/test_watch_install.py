"""The files ``watch --install`` writes, and the repository's own validate units: each
service runs as a user of its own, within a timeout, tells a failure unit when it fails,
passes ``systemd-analyze verify`` and scores 5 or less in ``systemd-analyze security``;
the crontab line keeps stderr and exit codes in the workspace."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.settings import Settings
from browser_agent.watch.install import CRONTAB, FAILED, SERVICE, TIMER, cron_schedule

ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is not installed here (Debian: apt install systemd)"
)
REPO_UNITS = Path(__file__).resolve().parent.parent / "scripts" / "cron"
EXAMPLE_PROGRAM = "/opt/browser-agent/.venv/bin/browser-agent"
MOST_EXPOSURE = 5.0


def install(settings: Settings, *args: str) -> str:
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    result = CliRunner().invoke(app, ["watch", "--install", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def verify(folder: Path, *names: str) -> None:
    done = subprocess.run(
        [ANALYZE, "verify", *(f"./{name}" for name in names)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def exposure(folder: Path, name: str) -> float:
    """The overall exposure ``systemd-analyze security --offline=yes`` gives a unit file."""
    done = subprocess.run(
        [ANALYZE, "security", "--offline=yes", f"./{name}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert found, done.stdout + done.stderr
    return float(found[1])


def settings_of(unit: str) -> dict[str, str]:
    return dict(
        line.split("=", 1) for line in unit.splitlines() if "=" in line and line[0] not in "#;"
    )


@needs_analyze
def test_the_systemd_units_written_verify_and_score_5_or_less(
    settings: Settings, tmp_path: Path
) -> None:
    out = tmp_path / "units"
    install(settings, "systemd", "--to", str(out), "--every", "10m", "--notify", "notify-me --now")
    assert sorted(p.name for p in out.iterdir()) == sorted([SERVICE, TIMER, FAILED])
    service = settings_of((out / SERVICE).read_text())
    assert service["User"] not in ("root", "0", "")
    assert service["TimeoutStartSec"] == "1800"
    assert service["OnFailure"] == "browser-agent-failed@%n.service"
    assert service["ExecStart"].endswith(" watch run-due")
    assert service["ReadWritePaths"] == str(settings.workspace)
    assert "MemoryDenyWriteExecute" not in service  # Chromium's JavaScript engine needs it
    failed = settings_of((out / FAILED).read_text())
    assert failed["ExecStart"].endswith(' watch notify-failure %i --notify "notify-me --now"')
    assert settings_of((out / TIMER).read_text())["OnUnitActiveSec"] == "600"
    verify(out, SERVICE, TIMER, FAILED)
    for name in (SERVICE, FAILED):
        assert exposure(out, name) <= MOST_EXPOSURE, name


@needs_analyze
def test_the_repository_validate_units_verify_and_score_5_or_less(tmp_path: Path) -> None:
    """scripts/cron/ with its example path replaced by this checkout's browser-agent."""
    program = str(Path(sys.executable).with_name("browser-agent"))
    for unit in REPO_UNITS.glob("*.service"):
        text = unit.read_text().replace(EXAMPLE_PROGRAM, program)
        assert "/dev/null" not in text and "\nUser=browser-agent\n" in text, unit.name
        assert "TimeoutStartSec=" in text and "OnFailure=" in text or "@" in unit.name
        (tmp_path / unit.name).write_text(text)
    shutil.copy(REPO_UNITS / "browser-agent-validate.timer", tmp_path)
    verify(tmp_path, "browser-agent-validate.service", "browser-agent-validate.timer", FAILED)
    for name in ("browser-agent-validate.service", FAILED):
        assert exposure(tmp_path, name) <= MOST_EXPOSURE, name


def test_the_cron_line_keeps_errors_and_exit_codes_in_the_workspace(
    settings: Settings, tmp_path: Path
) -> None:
    install(settings, "cron", "--to", str(tmp_path), "--every", "15m")
    (line,) = [x for x in (tmp_path / CRONTAB).read_text().splitlines() if not x.startswith("#")]
    log = settings.workspace / "logs" / "watch.log"
    assert line.startswith("*/15 * * * * ")
    assert f"watch run-due >>{log} 2>&1 || " in line and "/dev/null" not in line
    assert 'notify-failure "watch run-due from cron, exit code $?"' in line
    assert "/dev/null" not in (REPO_UNITS / "validate.crontab").read_text()
    # the line as cron's shell runs it: a failing run-due is kept, with its code
    fake = tmp_path / "browser-agent"
    fake.write_text(
        '#!/bin/sh\nif [ "$2" = run-due ]; then echo "it broke" >&2; exit 3; fi\n'
        'echo "$@" >>"$BROWSER_AGENT_WORKSPACE/logs/watch.log"\n'
    )
    fake.chmod(0o755)
    command = line.split(" ", 5)[5].replace(
        str(Path(sys.executable).with_name("browser-agent")), str(fake)
    )
    subprocess.run(["/bin/sh", "-c", command.replace("\\%", "%")], check=False, timeout=30)
    kept = log.read_text()
    assert "it broke" in kept and "exit code 3" in kept


def test_cron_schedules() -> None:
    assert [cron_schedule(s) for s in (30, 60, 300, 3600, 7200, 86400)] == [
        "* * * * *",
        "* * * * *",
        "*/5 * * * *",
        "0 */1 * * *",
        "0 */2 * * *",
        "0 0 */1 * *",
    ]


def test_a_failed_unit_is_kept_in_the_log_and_told_to_the_hook(
    settings: Settings, tmp_path: Path
) -> None:
    told = tmp_path / "told.json"
    hook = (
        f"{sys.executable} -c \"import sys; open(sys.argv[1], 'w').write(sys.stdin.read())\" {told}"
    )
    env = {"BROWSER_AGENT_WORKSPACE": str(settings.workspace)}
    args = ["watch", "notify-failure", "browser-agent-watch.service", "--notify", hook]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    kept = (settings.workspace / "logs" / "watch.log").read_text()
    assert "browser-agent-watch.service failed; notify sent" in kept
    event = json.loads(told.read_text())
    assert (event["event"], event["unit"]) == ("unit_failed", "browser-agent-watch.service")
