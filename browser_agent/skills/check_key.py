"""The person's own key for the marks of checked skill rows (see skills.stored).

A mark says "this release made exactly this row's code from its plan", so that a routed run
need not make it again. Whoever can write the store or the workspace must not be able to
write one: a mark is named by an HMAC of the row under this key, and the key lives outside
every workspace, in the user's state folder (``~/.local/state/browser-agent/`` on Linux,
``$XDG_STATE_HOME`` when set), made on first use from 32 random bytes (the file mode 0600,
its folder 0700). A copied workspace, or a mark written by hand, names no row under this
key, so the row is checked in full again. No key (a folder that cannot be written, a key
file others may read or write, or the key's folder inside the workspace): no marks, and
every row is checked in full.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from platformdirs import user_state_dir

from browser_agent.names import APP_NAME

KEY_FILE = "skill-marks.key"
KEY_BYTES = 32


def key_path() -> Path:
    """Where this user's key is kept: the user's state folder, outside any workspace."""
    return Path(user_state_dir(APP_NAME)) / KEY_FILE


def _read(path: Path) -> bytes | None:
    """The key in ``path`` when it is the user's own and no one else's to read or write."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if hasattr(os, "getuid") and (status.st_uid != os.getuid() or status.st_mode & 0o077):
            return None
        key = handle.read(KEY_BYTES + 1)
    return key if len(key) == KEY_BYTES else None


def _made(path: Path) -> bytes | None:
    """A new key at ``path``; the one another process made first when two start at once."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    draft = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        with contextlib.suppress(FileExistsError):  # never replaces a key already there
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
    return _read(path)


def user_key(workspace: Path) -> bytes | None:
    """This user's key, made on first use; None when there is none to trust (then no row
    is taken as checked before)."""
    path = key_path()
    try:
        if path.parent.resolve().is_relative_to(workspace.resolve()):
            return None  # copied with the workspace: it would vouch for the copy
        try:
            return _read(path)
        except FileNotFoundError:
            return _made(path)
    except OSError:
        return None


def mark_name(key: bytes, row: bytes) -> str:
    """The name of the mark of ``row`` (its every byte) under ``key``."""
    return hmac.new(key, row, hashlib.sha256).hexdigest()
