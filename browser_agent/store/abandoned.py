"""Runs whose process died while running them (killed, or the machine restarted).

Each run records the process that runs it (pid and host name). Opening the store marks
the runs of this host still ``running`` whose process is gone as ``abandoned``: one
SELECT of running rows, and one UPDATE when any is found. Runs of other hosts are left
alone, since their processes cannot be seen from here.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime
from pathlib import Path

from browser_agent.store.connection import Store

ABANDONED_ERROR = "The process running it ended (killed, or the machine restarted) before it did."


def this_process() -> tuple[int, str]:
    """The pid and host name recorded on the runs this process starts."""
    return os.getpid(), socket.gethostname()


def mark_abandoned(store: Store) -> list[str]:
    """Mark this host's running runs whose process no longer exists as abandoned; their ids."""
    if os.name != "posix":  # os.kill(pid, 0) would end the process elsewhere
        return []
    _pid, host = this_process()
    with store.transaction() as execute:
        running = execute(
            "SELECT id, pid FROM run WHERE status = 'running' AND host = :host", host=host
        ).rows
        dead = [row["id"] for row in running if row["pid"] is not None and not _alive(row["pid"])]
        for run_id in dead:
            execute(
                "UPDATE run SET status = 'abandoned', error = :error, finished_at = :now "
                "WHERE id = :id AND status = 'running'",
                id=run_id,
                error=ABANDONED_ERROR,
                now=datetime.now(UTC),
            )
    return dead


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host and has not ended (a zombie has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):  # no /proc (macOS): existing is all we can tell
        return True
    return fields[0] != "Z"
