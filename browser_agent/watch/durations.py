"""Durations as people write them for a watch's period: ``30s``, ``15m``, ``1h``, ``2d``,
``1h30m``."""

from __future__ import annotations

import re

from browser_agent.errors import UserError

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+)([smhd])")
_WHOLE = re.compile(r"(?:\d+[smhd])+")
LONGEST = 366 * 86400


class BadDuration(UserError):
    """A duration that is not a number of s, m, h or d."""


def parse_duration(text: str, option: str = "--every") -> int:
    """Seconds in ``text``; BadDuration (one line) for anything else, zero, or over a year."""
    said = text.strip().lower().replace(" ", "")
    if not _WHOLE.fullmatch(said):
        raise BadDuration(
            f"{option} {text!r} is not a duration: write a number and a unit, "
            "s, m, h or d (30s, 15m, 1h, 2d, 1h30m)"
        )
    seconds = sum(int(count) * UNITS[unit] for count, unit in _PART.findall(said))
    if not 0 < seconds <= LONGEST:
        raise BadDuration(f"{option} {text!r}: a duration is more than 0s and at most 366d")
    return seconds


def said_duration(seconds: int) -> str:
    """``seconds`` as the shortest duration text: 900 -> ``15m``, 5400 -> ``1h30m``."""
    parts = []
    for unit, size in sorted(UNITS.items(), key=lambda item: -item[1]):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0s"
