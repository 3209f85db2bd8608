"""A command's values as a skill's steps use them: a position ("3rd"), a letter case, a
menu path ("File > Save as")."""

from __future__ import annotations

import re

from browser_agent.skills.targets import SkillNotApplicable

_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth")  # fmt: skip


def ordinal_value(text: str) -> int | None:
    """3 for "3rd", "third" or "3"; None when ``text`` is no position."""
    word = text.strip().lower()
    if word in _ORDINAL_WORDS:
        return _ORDINAL_WORDS.index(word) + 1
    match = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", word)
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def with_case(text: str, case: str) -> str:
    """``text`` in the letter case a command asked for: "upper" or "lower"."""
    wanted = case.strip().lower()
    if wanted not in ("upper", "lower"):
        raise SkillNotApplicable(f"{case!r} is not a letter case (upper or lower).", step=0)
    return text.upper() if wanted == "upper" else text.lower()


def path_items(path: str) -> list[tuple[str, bool]]:
    """The items of a menu path "File > Save as", each with whether it is the last."""
    items = [item.strip() for item in path.split(">") if item.strip()]
    return [(item, index == len(items) - 1) for index, item in enumerate(items)]
