"""What a partial skill says of itself: the part of its command it does not do, kept as a
sentence of its docstring so that the module, the store and every listing say the same."""

from __future__ import annotations

import re

LEAD = "Partial: it does not "
_SAID = re.compile(rf"^\s*{re.escape(LEAD)}(.+?)\.?\s*$", re.MULTILINE)


def partial_sentence(lacks: str) -> str:
    """The docstring's sentence for a skill that does not do ``lacks``."""
    return f"{LEAD}{lacks.rstrip('.')}."


def lacking(docstring: str | None) -> str | None:
    """The part of the command a skill's docstring says it does not do; None when the
    skill does all of it."""
    found = _SAID.search(docstring or "")
    return found.group(1) if found else None
