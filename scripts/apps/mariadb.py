"""A throwaway MariaDB server (Debian's mariadb-server) on a socket of its own, for the PHP
apps: its data folder and socket under the app's temporary folder, never the system
service; stopped and removed when the block ends."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from scripts.apps import spawn, stop


@dataclass
class MariaDB:
    """A running server: its socket, and a way to run SQL as its root user."""

    socket: Path

    def sql(self, statement: str, database: str = "") -> list[list[str]]:
        """The rows of ``statement`` (tab-separated fields), as root over the socket."""
        done = subprocess.run(
            ["mariadb", "--no-defaults", "-uroot", f"--socket={self.socket}", "-N", "-B",
             "-e", statement, *([database] if database else [])],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"mariadb: {done.stderr.strip()}")
        return [line.split("\t") for line in done.stdout.splitlines()]


def quoted(value: str) -> str:
    """A string literal for SQL."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


@contextmanager
def throwaway_mariadb(home: Path) -> Iterator[MariaDB]:
    """A fresh server with its data in ``home/mysql``, listening only on ``home/mysql.sock``."""
    data, sock = home / "mysql", home / "mysql.sock"
    subprocess.run(
        ["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
         "--auth-root-authentication-method=normal", "--skip-test-db"],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    server = spawn(
        ["mariadbd", "--no-defaults", f"--datadir={data}", f"--socket={sock}", "--user=root",
         "--skip-networking", f"--pid-file={home / 'mysql.pid'}",
         "--innodb-flush-log-at-trx-commit=0",
         f"--log-error={home / 'mysql.err'}"],
        home / "mysql.log",
    )  # fmt: skip
    try:
        db = MariaDB(sock)
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"mariadbd exited: see {home / 'mysql.err'}")
            try:
                db.sql("SELECT 1")
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield db
    finally:
        stop(server)
