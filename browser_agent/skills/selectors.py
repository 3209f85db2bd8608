"""Small selector rules shared by the harvester and the skills it writes (no heavy imports:
generated skills load this at run time)."""

from __future__ import annotations

import json
import re

# The role of an element recorded from a selector the model wrote itself: any role will do,
# as long as exactly one visible element matches.
ANY_ROLE = "*"

# Marks a command uses for a close button ("the button labeled x"), which pages name
# "Close" in words.
CLOSE_MARKS = ("x", "\u00d7", "\u2715", "\u2716")


def text_selector(tag: str, text: str) -> str:
    """A selector for the ``tag`` element whose whole text is ``text`` (case aside), for
    elements with no role (a span a script made clickable)."""
    pattern = json.dumps("^" + re.escape(" ".join(text.split())) + "$")
    return f'{tag or "*"}:text-matches({pattern}, "i")'
