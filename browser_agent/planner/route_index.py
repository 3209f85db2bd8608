"""An index of skills' command templates for routing: each template is parsed once, when
its skill is first seen, and filed under its rarest literal word. A command is matched
only against the templates filed under one of its own words whose literal words it all
holds, so routing costs no more than the candidates that share the command's words,
however many skills there are.

A skill's routability (status, site) is checked when it is a candidate, not when it is
filed: the router marks a failed skill stale in place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from browser_agent.planner.templates import (
    ACTION_VERBS,
    FILLERS,
    PLACEHOLDER,
    WORD_OR_MARK,
    Command,
    Template,
    parse_template,
)


@dataclass(frozen=True)
class Words:
    """A template's text, the literal words a command must hold for it, and its verb (its
    first literal word, when it comes before any parameter)."""

    text: str
    words: frozenset[str]
    verb: str | None


@lru_cache(maxsize=1 << 16)
def template_words(command_templates: str) -> tuple[Words, ...]:
    """The templates of a skill's template column, read as planner.templates reads them
    but without parsing them further; a malformed column, or a template with no literal
    word, gives nothing."""
    try:
        texts = json.loads(command_templates)
    except (TypeError, json.JSONDecodeError):
        return ()
    if not isinstance(texts, list):
        return ()
    return tuple(read for read in map(_words, (t for t in texts if isinstance(t, str))) if read)


def _words(text: str) -> Words | None:
    words: list[str] = []
    verb, head = None, True  # head: before the first parameter
    for piece in PLACEHOLDER.split(text):
        if piece in ("{{", "}}"):
            continue  # literal braces: marks, which do not count
        if piece.startswith("{") and piece.endswith("}"):
            head = False
            continue
        for word in WORD_OR_MARK.findall(piece):
            if word[0].isalnum() or word[0] == "_":
                norm = word.casefold().replace("\u2019", "'")
                if norm not in FILLERS:
                    if head and not words:
                        verb = norm
                    words.append(norm)
    return Words(text, frozenset(words), verb) if words else None


@lru_cache(maxsize=1 << 16)
def _schemas(signature: str) -> dict[str, dict[str, Any]]:
    """The JSON schema of each parameter in a skill's signature (its tool schema)."""
    try:
        loaded = json.loads(signature)
    except (TypeError, json.JSONDecodeError):
        return {}
    function = loaded.get("function", loaded) if isinstance(loaded, dict) else {}
    parameters = function.get("parameters", {}) if isinstance(function, dict) else {}
    properties = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
    if not isinstance(properties, dict):
        return {}
    return {k: v for k, v in properties.items() if isinstance(v, dict)}


@dataclass(frozen=True)
class Filed:
    """One template of one skill, with the literal words a command must hold for it."""

    skill: Any  # a SkillRow or a Skill
    order: int  # the skill's place in the list indexed
    text: str
    words: frozenset[str]

    @property
    def template(self) -> Template:
        """The template parsed (once: parse_template keeps it)."""
        return parse_template(self.text)

    @property
    def schemas(self) -> dict[str, dict[str, Any]]:
        """The JSON schema of each of the skill's parameters (read once)."""
        return _schemas(self.skill.signature)


class RouteIndex:
    """Every template of ``skills`` with a literal word, filed under its rarest one;
    templates are parsed, and signatures read, only when a command is a candidate."""

    def __init__(self, skills: Sequence[Any]) -> None:
        read = [
            (order, skill, template_words(skill.command_templates))
            for order, skill in enumerate(skills)
        ]
        filed = [
            Filed(skill, order, each.text, each.words)
            for order, skill, templates in read
            for each in templates
        ]
        # the first word of every template that starts with one begins a clause too
        verbs = {each.verb for _o, _s, templates in read for each in templates if each.verb}
        self.verbs = ACTION_VERBS | verbs
        counts: dict[str, int] = {}
        for entry in filed:
            for word in entry.words:
                counts[word] = counts.get(word, 0) + 1
        self.by_word: dict[str, list[Filed]] = {}
        for entry in filed:
            rarest = min(entry.words, key=lambda word: (counts[word], word))
            self.by_word.setdefault(rarest, []).append(entry)

    def candidates(self, command: Command) -> list[Filed]:
        """The usable templates whose literal words all stand in ``command``, in the order
        of their skills."""
        have = command.where
        found = [
            entry
            for word in have
            for entry in self.by_word.get(word, ())
            if all(w in have for w in entry.words) and entry.template.usable
        ]
        return sorted(found, key=lambda entry: entry.order)


_last: tuple[Sequence[Any], int, RouteIndex] | None = None


def index_of(skills: Sequence[Any]) -> RouteIndex:
    """The index of ``skills``: the one made last when it is the same list, unchanged in
    length (a run routes from the rows it read once), else a new one from the parsed
    templates kept per skill."""
    global _last
    if _last is not None and _last[0] is skills and _last[1] == len(skills):
        return _last[2]
    made = RouteIndex(skills)
    _last = (skills, len(skills), made)
    return made
