"""The values a command gives, as the page it ends on must show them: its quoted parts,
what a run typed that is words of the command, the terms it searches for, a skill's
arguments. Secrets' ``{NAME}`` placeholders are never among them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from browser_agent.secrets import placeholders
from browser_agent.words.asks import QUOTED, quoted
from browser_agent.words.text_match import normal, shows

# "search for X", "search the docs for X": X runs to the end of its clause.
_SEARCH = re.compile(
    r"\bsearch(?:\s+(?:the\s+|a\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+for\s+(?P<term>.+)", re.IGNORECASE
)
_CLAUSE_END = re.compile(
    r"[,;.!?]\s|[,;.!?]$|\s+(?:and|then)\s+|\s+(?:on|in|at)\s+(?:the\s+)?"
    r"(?:site|shop|store|website)\b",
    re.IGNORECASE,
)


def command_values(command: str, used: Iterable[str] = ()) -> list[str]:
    """The values a command gives, as an end state shows them: its quoted parts, and what
    the run typed or chose that is words of the command (a search term given unquoted)."""
    values = quoted(command)
    said = normal(command)
    values += [value for value in used if shows(said, normal(value))]
    return distinct_values(values)


def search_terms(command: str, typed: Iterable[str] = ()) -> list[str]:
    """The terms ``command`` searches for (quoted, or the words up to the clause's end) that
    the run did not type: those its final page must hold."""
    said = [normal(text) for text in typed]
    terms = []
    for match in _SEARCH.finditer(command):
        term = match["term"].strip()
        said_quoted = QUOTED.match(term)
        if said_quoted:
            term = next(g for g in said_quoted.groups() if g)
        else:
            end = _CLAUSE_END.search(term)
            term = term[: end.start()] if end else term
        if not any(shows(text, normal(term)) for text in said):
            terms.append(term.strip())
    return distinct_values(terms)


def skill_values(values: Mapping[str, object]) -> list[str]:
    """The values a skill was given (its parameters, a list's items one by one)."""
    found: list[str] = []
    for value in values.values():
        items = value if isinstance(value, list) else [value]
        found += [str(item) for item in items if isinstance(item, str | int)]
    return distinct_values(found)


def distinct_values(values: Iterable[str]) -> list[str]:
    """Values worth looking for, once each: no secret placeholder, none empty."""
    kept: dict[str, str] = {}
    for value in values:
        if placeholders(value) or not normal(value):
            continue
        kept.setdefault(normal(value), value.strip())
    return list(kept.values())
