"""Reading a batch file: one command per line, or JSON lines
``{"command": ..., "url": ..., "secrets": ["NAME", ...]}``; blank lines and ``#`` comments
are skipped. A line that is neither is refused with its number."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from browser_agent.errors import UserError, unreadable

_SECRET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYS = {"command", "url", "secrets"}
#: A batch larger than this is surely not a file of commands.
MAX_BYTES = 16 * 1024 * 1024


class BatchFileError(UserError, ValueError):
    """The batch file cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class BatchLine:
    """One command of a batch, with the line it came from."""

    line: int
    command: str
    url: str | None = None
    secrets: tuple[str, ...] = ()


def read_batch(path: Path) -> list[BatchLine]:
    """The commands of the batch file at ``path``, in order."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise BatchFileError(f"{path} is larger than {MAX_BYTES // 2**20} MiB")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchFileError(f"{path} {unreadable(exc)}") from None
    lines = [
        parse_line(number, raw.strip(), path)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip() and not raw.lstrip().startswith("#")
    ]
    if not lines:
        raise BatchFileError(f"{path} holds no commands")
    return lines


def parse_line(number: int, text: str, path: Path) -> BatchLine:
    """One non-blank line: a JSON object when it starts with ``{``, else the command."""
    if not text.startswith("{"):
        return BatchLine(number, text)
    where = f"{path} line {number}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BatchFileError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise BatchFileError(f"{where}: a JSON line must be an object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise BatchFileError(f"{where}: unknown key {unknown[0]!r} (keys: command, url, secrets)")
    command = data.get("command")
    if not isinstance(command, str) or not command.strip():
        raise BatchFileError(f"{where}: 'command' must be a non-empty string")
    url = data.get("url")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise BatchFileError(f"{where}: 'url' must be a non-empty string")
    secrets = data.get("secrets", [])
    if not isinstance(secrets, list) or not all(
        isinstance(name, str) and _SECRET_NAME.fullmatch(name) for name in secrets
    ):
        raise BatchFileError(
            f"{where}: 'secrets' must be a list of secret names (letters, digits and _)"
        )
    return BatchLine(number, command.strip(), url.strip() if url else None, tuple(secrets))
