"""A throwaway PostgreSQL cluster on loopback, for the store tests and scripts/bench_store.py.

The server comes from the system's packages (Debian's ``postgresql``, installed by
scripts/setup.sh when missing): ``initdb`` into a temporary folder, ``pg_ctl start`` on a
free port of 127.0.0.1, and everything removed when the block ends. TCP logins need a
password (``scram-sha-256``), as on a real server, so a wrong one is refused. As root the
cluster runs as the ``postgres`` user, which the package creates (PostgreSQL refuses root).

    with throwaway_postgres() as server:          # postgresql://postgres:PW@127.0.0.1:P/agent
        with fresh_database(server) as url:       # an empty database of its own
            ...
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER_USER = "postgres"
_databases = itertools.count(1)


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def server_binaries() -> Path:
    """The folder holding initdb and pg_ctl (the newest installed major version)."""
    for name in ("initdb", "pg_ctl"):
        found = shutil.which(name)
        if found:
            return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if versions:
        return versions[-1]
    raise PostgresMissing(
        "the store tests need a PostgreSQL server: run scripts/setup.sh (as root it installs "
        "Debian's postgresql package), or install PostgreSQL's server binaries"
    )


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    """The command run as the postgres user when we are root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", SERVER_USER, "--", *command]
    return command


def _run(binaries: Path, *command: str) -> None:
    """Run a server program; its own output is the error when it fails."""
    done = subprocess.run(
        _as_server_user([str(binaries / command[0]), *command[1:]]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip()
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {said}")


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A fresh cluster on 127.0.0.1; yields the URL of an empty database ``agent``, as
    the superuser ``postgres`` with a random password."""
    binaries = server_binaries()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-pg-"))
    password = secrets.token_hex(12)
    (home / "password").write_text(password)
    if os.geteuid() == 0:
        shutil.chown(home, SERVER_USER)
        shutil.chown(home / "password", SERVER_USER)
    data, port = home / "data", free_port()
    try:
        _run(
            binaries,
            "initdb",
            *("-D", str(data), "-U", SERVER_USER, "--no-sync", "--auth-local=trust"),
            *("--auth-host=scram-sha-256", f"--pwfile={home / 'password'}"),
        )
        options = f"-h 127.0.0.1 -p {port} -k {home} -c fsync=off -c max_connections=300"
        log = str(home / "log")
        _run(binaries, "pg_ctl", "-D", str(data), "-o", options, "-l", log, "-w", "start")
        try:
            _run(binaries, "createdb", "-h", str(home), "-p", str(port), "-U", SERVER_USER, "agent")
            yield f"postgresql://{SERVER_USER}:{password}@127.0.0.1:{port}/agent"
        finally:
            _run(binaries, "pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def fresh_database(server_url: str, prefix: str = "store") -> Iterator[str]:
    """An empty database of its own on the server of ``server_url``, dropped afterwards
    (with any connection still open to it); yields its URL."""
    from sqlalchemy import create_engine, make_url

    admin_url = make_url(server_url).set(drivername="postgresql+psycopg")
    name = f"{prefix}_{os.getpid()}_{next(_databases)}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        admin.dispose()
