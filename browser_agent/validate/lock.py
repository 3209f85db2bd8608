"""The validation lock: a lock file in the workspace, so two validations never overlap."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from browser_agent.errors import BrowserAgentError
from browser_agent.settings import Settings


class LockHeld(BrowserAgentError, RuntimeError):
    """Another validation of the same workspace is running."""


def lock_path(settings: Settings) -> Path:
    return settings.workspace / ".validate.lock"


@contextmanager
def validation_lock(settings: Settings) -> Iterator[Path]:
    """Hold the workspace's validation lock for the block, or raise LockHeld at once."""
    path = lock_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, timeout=0)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockHeld(
            f"Another validation is running (it holds {path}); try again when it is done."
        ) from exc
    try:
        yield path
    finally:
        lock.release()
