"""What changed in a page's text between two checks of a watch, said as a short diff:
the lines gone (``-``) and the lines new (``+``), a few of them, each cut short."""

from __future__ import annotations

import difflib

KEPT = 20_000  # characters of a check's page text kept to compare with the next check's
SHOWN = 6  # changed lines said
WIDE = 80  # characters of a changed line said


def said_diff(before: str, after: str) -> str:
    """``-Stock: 7 | +Stock: 0 | +Sold out``: the lines of ``before`` that ``after`` lost
    and the lines it gained, blank lines and spacing ignored; empty when the text is the
    same."""
    old, new = _lines(before), _lines(after)
    changed = [
        line
        for line in difflib.unified_diff(old, new, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if not changed:
        return ""
    said = [line if len(line) <= WIDE else f"{line[: WIDE - 1]}…" for line in changed[:SHOWN]]
    more = len(changed) - SHOWN
    return " | ".join(said) + (f" | … {more} more lines" if more > 0 else "")


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]
