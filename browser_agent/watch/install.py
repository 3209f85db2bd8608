"""``watch --install``: the files that run ``watch run-due`` unattended, written for the
user to install. A systemd service (a non-root ``User=``, ``TimeoutStartSec=``, an
``OnFailure=`` unit that tells the hook, and the sandboxing that ``systemd-analyze
security`` scores), its timer, or a crontab line that keeps stderr and exit codes in the
workspace's log. Nothing is installed or enabled here."""

from __future__ import annotations

import getpass
import shlex
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

from browser_agent.errors import UserError
from browser_agent.settings import Settings
from browser_agent.watch.durations import parse_duration
from browser_agent.watch.notify import checked_target, notify

SERVICE = "browser-agent-watch.service"
TIMER = "browser-agent-watch.timer"
FAILED = "browser-agent-failed@.service"  # OnFailure= template: %i is the failed unit
CRONTAB = "browser-agent-watch.crontab"
LOG = "watch.log"  # in the workspace's logs/
SERVICE_USER = "browser-agent"  # the user suggested when the installer is root

#: The sandbox of every unit. Chromium needs writable and executable memory for its
#: JavaScript engine, so MemoryDenyWriteExecute= is not set; it needs the network, so no
#: IP allow-list either. Playwright starts it without its own sandbox, whose namespaces
#: RestrictNamespaces= would refuse.
HARDENING = """\
NoNewPrivileges=yes
CapabilityBoundingSet=
AmbientCapabilities=
ProtectSystem=strict
ProtectHome=read-only
ReadWritePaths={workspace}
PrivateTmp=yes
PrivateDevices=yes
DevicePolicy=closed
PrivateUsers=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
KeyringMode=private
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM
UMask=0077
"""


def executable() -> str:
    """The browser-agent command this process is (an absolute path), for the units."""
    beside = Path(sys.executable).with_name("browser-agent")
    found = str(beside) if beside.is_file() else shutil.which("browser-agent")
    if not found:
        raise UserError("cannot find the browser-agent command to install: put it on PATH")
    return str(Path(found).absolute())


def service_user(user: str | None) -> str:
    """The user the units run as: the one given, else who installs (browser-agent for
    root); root is refused."""
    chosen = (user or "").strip() or getpass.getuser()
    if chosen == "root" and not user:
        chosen = SERVICE_USER
    if chosen in ("root", "0"):
        raise UserError("--user root: watches run as a user of their own, not root")
    if not chosen.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise UserError(f"--user {chosen!r} is not a user name")
    return chosen


def quoted(argument: str) -> str:
    """One argument of a unit's ExecStart=: quoted, with systemd's % and $ escaped."""
    escaped = argument.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'


def unit_path(path: Path | str, what: str) -> str:
    """A path as a unit file takes it bare (WorkingDirectory=, ReadWritePaths=): % escaped;
    a path with spaces, quotes or backslashes is refused, one line."""
    text = str(path)
    if any(c.isspace() or c in "\"'\\" for c in text):
        raise UserError(f"{what} {text!r} has spaces or quotes, which a systemd unit cannot hold")
    return text.replace("%", "%%")


def systemd_units(
    workspace: Path, program: str, user: str, every_s: int, timeout_s: int, target: str | None
) -> dict[str, str]:
    """The service, timer and failure template, by file name."""
    folder = unit_path(workspace, "the workspace")
    hardening = HARDENING.format(workspace=folder)
    told = f" --notify {quoted(target)}" if target else ""
    common = (
        f"User={user}\nWorkingDirectory={folder}\n"
        f"Environment={quoted(f'BROWSER_AGENT_WORKSPACE={workspace}')}\n"
    )
    service = f"""\
# Checks every browser-agent watch that is due (browser-agent watch run-due). It fails
# (exit code 1) when a check failed and 2 when it could not run; OnFailure= then tells
# {FAILED.replace("@", "@<unit>")}. Written by browser-agent watch --install systemd.
[Unit]
Description=Check the browser-agent watches that are due
Wants=network-online.target
After=network-online.target
OnFailure={FAILED.replace("@", "@%n")}

[Service]
Type=oneshot
{common}ExecStart={unit_path(program, "the browser-agent command")} watch run-due
TimeoutStartSec={timeout_s}
{hardening}"""
    timer = f"""\
[Unit]
Description=Check the browser-agent watches that are due, every {every_s} s

[Timer]
OnBootSec=60
OnUnitActiveSec={every_s}
AccuracySec=5
Unit={SERVICE}

[Install]
WantedBy=timers.target
"""
    failed = f"""\
# Says that a browser-agent unit failed: a line in the workspace's logs/{LOG}, the journal,
# and the notify hook when one was given to watch --install.
[Unit]
Description=Tell that %i failed

[Service]
Type=oneshot
{common}ExecStart={unit_path(program, "the browser-agent command")} watch notify-failure %i{told}
TimeoutStartSec=120
{hardening}"""
    return {SERVICE: service, TIMER: timer, FAILED: failed}


def cron_schedule(every_s: int) -> str:
    """The crontab times for a period: every N minutes, hours or days (at least a minute)."""
    minutes = max(1, -(-every_s // 60))
    if minutes < 60:
        return f"*/{minutes} * * * *" if minutes > 1 else "* * * * *"
    hours = minutes // 60
    if hours < 24:
        return f"0 */{hours} * * *"
    return f"0 0 */{min(hours // 24, 31)} * *"


def cron_line(workspace: Path, program: str, every_s: int, target: str | None) -> str:
    """A crontab line: run-due's output and errors appended to logs/watch.log; a non-zero
    exit is told (log, cron's mail, the hook) with its code."""
    log = workspace / "logs" / LOG
    env = f"BROWSER_AGENT_WORKSPACE={shlex.quote(str(workspace))}"
    told = f" --notify {shlex.quote(target)}" if target else ""
    line = (
        f"{cron_schedule(every_s)} cd {shlex.quote(str(workspace))} && {env} "
        f"{shlex.quote(program)} watch run-due >>{shlex.quote(str(log))} 2>&1 || "
        f'{env} {shlex.quote(program)} watch notify-failure "watch run-due from cron, exit '
        f'code $?"{told}'
    )
    return line.replace("%", "\\%")  # cron ends a command at a bare %


def write_install(
    settings: Settings,
    kind: str,
    folder: Path | None,
    every: str,
    timeout: str,
    user: str | None,
    target: str | None,
) -> tuple[list[Path], str]:
    """Write the files of ``kind`` (systemd or cron) to ``folder`` (the workspace when
    None); the paths, and how to install them."""
    if kind not in ("systemd", "cron"):
        raise UserError(f"--install {kind!r}: write systemd or cron")
    every_s = parse_duration(every, "--every")
    timeout_s = parse_duration(timeout, "--timeout")
    hook = checked_target(target) if target else None
    workspace = settings.workspace.absolute()
    out = (folder or workspace).absolute()
    out.mkdir(parents=True, exist_ok=True)
    (workspace / "logs").mkdir(parents=True, exist_ok=True)
    program = executable()
    if kind == "cron":
        path = out / CRONTAB
        path.write_text(
            f"# browser-agent watches: crontab {path} (or crontab -e and paste the line).\n"
            f"# Errors and exit codes go to {workspace / 'logs' / LOG} and to cron's mail.\n"
            f"{cron_line(workspace, program, every_s, hook)}\n",
            encoding="utf-8",
        )
        return [path], f"Install: crontab -l | cat - {path} | crontab -"
    chosen = service_user(user)
    written = []
    for name, text in systemd_units(workspace, program, chosen, every_s, timeout_s, hook).items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    steps = (
        f"Install: sudo cp {' '.join(str(p) for p in written)} /etc/systemd/system/ && "
        f"sudo systemctl daemon-reload && sudo systemctl enable --now {TIMER}\n"
        f"The units run as {chosen}, who must be able to write {workspace}."
    )
    return written, steps


def unit_failed(settings: Settings, unit: str, target: str | None) -> str:
    """Keep and tell that ``unit`` failed: a line in logs/watch.log, and the hook."""
    at = datetime.now(UTC)
    said = f"{at:%Y-%m-%dT%H:%M:%SZ} {' '.join(unit.split())[:200]} failed"
    if target:
        event = {"event": "unit_failed", "unit": unit, "message": said, "at": at.isoformat()}
        said += f"; notify {notify(checked_target(target), event)}"
    log = settings.logs_dir / LOG
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as out:
        out.write(said + "\n")
    return said
