"""Profile names and storage-state files: a named profile of the workspace
(``profiles/NAME.json``) or a Playwright storage-state file, checked, read and written.

A profile holds live session cookies: its file is the owner's only (0600, in a 0700
folder), and its contents are never echoed, not even when a file is malformed.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Literal, NotRequired

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

from browser_agent.errors import BrowserAgentError, unreadable

PROFILES_DIR = "profiles"
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
PROFILE_RULE = "letters, digits, '.', '_' and '-' (starting with a letter or digit, at most 64)"


class StorageCookie(TypedDict):
    """A cookie as Playwright's ``storage_state()`` writes it."""

    name: str
    value: str
    domain: str
    path: str
    expires: NotRequired[float]
    httpOnly: NotRequired[bool]
    secure: NotRequired[bool]
    sameSite: NotRequired[Literal["Lax", "None", "Strict"]]


class LocalStorageEntry(TypedDict):
    name: str
    value: str


class OriginState(TypedDict):
    """One origin's localStorage."""

    origin: str
    localStorage: list[LocalStorageEntry]


class StorageState(TypedDict):
    """Playwright's storage-state format: ``{"cookies": [...], "origins": [...]}``."""

    cookies: list[StorageCookie]
    origins: list[OriginState]


_STATE = TypeAdapter(StorageState)


class ProfileError(BrowserAgentError, ValueError):
    """A profile or storage-state file that cannot be used; the message shows no content."""


def checked_profile_name(name: str) -> str:
    """``name`` when it is a profile name (one path component, no tricks); else ValueError."""
    if not PROFILE_NAME.fullmatch(name):
        raise ValueError(f"a profile name is {PROFILE_RULE}, got {name[:80]!r}")
    return name


def profile_path(workspace: Path, name: str) -> Path:
    """Where the profile ``name`` keeps its storage state."""
    return workspace / PROFILES_DIR / f"{checked_profile_name(name)}.json"


def read_storage_state(path: Path) -> dict[str, Any]:
    """The storage state in ``path``, checked against Playwright's format. Raises
    ProfileError saying what is wrong and where, never with a value from the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"the storage state {path} {unreadable(exc)}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(
            f"the storage state {path} is not JSON ({exc.msg}, line {exc.lineno})"
        ) from None
    try:
        _STATE.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise ProfileError(
            f"the storage state {path} is not in Playwright's format (cookies and origins): "
            f"{where}: {first['msg']}"
        ) from None
    return data


def write_storage_state(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` to ``path`` readable by its owner only, replacing it at once so a
    reader never sees half a file."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, 0o600)  # live session cookies: the owner's only
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(state, out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
