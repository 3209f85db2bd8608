"""How a harvested source is known again: a run by its id, another agent's log by its
workspace-relative path and content hash."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from browser_agent.settings import Settings


@dataclass(frozen=True)
class SourceKey:
    """How a source is remembered: ``run <id>``, or for a log without the agent's run
    metadata, its workspace-relative path and content hash."""

    key: str
    run_id: str | None
    path: str


def source_key(source: Path, settings: Settings) -> SourceKey | None:
    """How ``source`` is remembered; None when it cannot be read (nothing to know it by)."""
    path = _workspace_relative(source, settings)
    run_id = _run_id(source)
    if run_id is not None:
        return SourceKey(f"run {run_id}", run_id, path) if source.is_file() else None
    try:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
    except OSError:
        return None
    return SourceKey(f"{path} sha256:{digest}", None, path)


def _workspace_relative(source: Path, settings: Settings) -> str:
    """The path relative to the workspace when it lies inside, else absolute."""
    resolved = source.resolve()
    try:
        return resolved.relative_to(settings.workspace.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _run_id(source: Path) -> str | None:
    """The run id in the agent's metadata beside a log, if it is there and readable."""
    try:
        meta = json.loads(source.with_suffix(".meta.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    run_id = meta.get("id") if isinstance(meta, dict) else None
    return str(run_id) if isinstance(run_id, str | int) and str(run_id) else None
