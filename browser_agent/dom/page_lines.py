"""Reading get_dom's element lines back: mmid, kind, name, what a field holds, the rest.

A line is ``[mmid] kind "name": value attr=... (states)``. Page text has no kind
(``[12] "Some text"``); an item whose kind is ``-`` has the kind of the line above it (a
list of options goes on); a field's value follows its name after a colon.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

QUOTED = r'"(?:[^"\\]|\\.)*"'
BARE = r"[\w\-./:#?=&%+]+"
_LINE = re.compile(rf'^\[(\d+)\](?: ([^\s":]+))?(?: ({QUOTED}))?(?:: ({QUOTED}|{BARE}))?(.*)$')

TEXT = "text"
SAME_AS_ABOVE = "-"


@dataclass(frozen=True)
class ElementLine:
    """One element line of get_dom: its mmid, kind (a role, a tag, ``text`` or ``h1``..),
    name, the value a field holds (None when it holds none) and the rest of the line."""

    mmid: str
    kind: str
    name: str
    value: str | None
    rest: str


def unquoted(raw: str) -> str:
    """A value as get_dom writes it: JSON-quoted, or bare when it is one simple token."""
    if not raw.startswith('"'):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw.strip('"')


def element_lines(lines: Iterable[str]) -> Iterator[ElementLine | None]:
    """Each line read as an element line, or None for any other line (header, page text of
    text_only, markers); ``-`` is resolved to the kind of the element line just above."""
    above = ""
    for raw in lines:
        match = _LINE.match(raw.strip())
        if match is None:
            above = ""
            yield None
            continue
        mmid, kind, name, value, rest = match.groups()
        kind = (above or TEXT) if kind == SAME_AS_ABOVE else kind or TEXT
        above = kind
        yield ElementLine(
            mmid=mmid,
            kind=kind,
            name=unquoted(name) if name else "",
            value=unquoted(value) if value is not None else None,
            rest=rest,
        )
