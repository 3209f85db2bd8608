"""Paths in the store are relative to the workspace, so a workspace can move.

A path inside the workspace is kept as ``logs/<run>.json`` or
``skills/harvested/<skill>_v1.py``; one outside it stays absolute. Stores made before
paths were relative hold absolute paths: the part from a workspace folder on
(``logs/...``, ``skills/harvested/...``) is looked for in the current workspace first.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

#: Folders of a workspace a stored path may start from.
WORKSPACE_FOLDERS = ("logs", "skills", "reports", "foreign")


def to_store(path: Path | str, workspace: Path) -> str:
    """``path`` as the store keeps it: relative to ``workspace`` when inside it."""
    path = Path(path)
    try:
        return PurePosixPath(path.resolve().relative_to(workspace.resolve())).as_posix()
    except ValueError:
        return str(path)


def from_store(stored: str, workspace: Path) -> Path:
    """The file a stored path names, in ``workspace``: an old absolute path is looked for
    in this workspace first (it was moved or copied here), then where it was."""
    path = Path(stored)
    if not path.is_absolute():
        return workspace / path
    parts = path.parts
    for index in range(len(parts) - 1, -1, -1):  # the last workspace folder named in it
        if parts[index] in WORKSPACE_FOLDERS:
            here = workspace.joinpath(*parts[index:])
            if here.exists():
                return here
            break
    return path
