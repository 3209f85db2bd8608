"""System 1: which harvested skill a command is routed to, and which the planner gets as
tools. A pure decision (a command and candidate skills in, a route or none out): running
the skill is :mod:`browser_agent.planner.skill_call`'s, wrapping skills as tools
:mod:`browser_agent.planner.skill_tools`'.

A command that matches a healthy skill's template runs that skill with zero LLM calls.
Matching tolerates wording but not meaning (see planner.templates): case, quotes, spacing,
punctuation and filler words do not matter, a different word or an extra clause does.
When several skills match, the most specific wins: the most literal words matched, then
the fewest characters taken by parameters, then the newest version. Each value is checked
against its parameter's type in the skill's signature first (an integer must read as one,
a list is split from "a, b and c"); a value that does not fit makes the skill not
applicable to the command, which then goes to the planner.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from browser_agent.errors import BrowserAgentError
from browser_agent.harvest.replay import routable
from browser_agent.harvest.stored import refusal
from browser_agent.planner.route_index import index_of
from browser_agent.planner.templates import (
    Command,
    Gap,
    match_template,
    split_list,
)
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import same_site, site_of

MAX_SKILL_TOOLS = 3


def template_pattern(template: str) -> re.Pattern[str]:
    """A strict regex for commands of this template (exact words, single spaces); each
    {param} captures its value. Routing uses planner.templates instead."""
    parts = []
    for token in re.split(r"(\{\{|\}\}|\{\w+\})", template.strip()):
        if token == "{{":
            parts.append(re.escape("{"))
        elif token == "}}":
            parts.append(re.escape("}"))
        elif re.fullmatch(r"\{\w+\}", token):
            parts.append(f"(?P<{token[1:-1]}>.+?)")
        else:
            parts.append(r"\s+".join(re.escape(word) for word in token.split(" ")))
    return re.compile("".join(parts) + r"[.!]?", re.IGNORECASE | re.DOTALL)


@dataclass
class Route:
    """A skill that matches the command, with the arguments read from it (typed as the
    skill's signature says), the template that matched and how specific the match is."""

    skill: SkillRow
    arguments: dict[str, Any]
    template: str = ""
    literal_words: int = 0
    captured_chars: int = 0


class Unfit(BrowserAgentError, ValueError):
    """A value read from a command does not fit its parameter's type."""


@dataclass
class Routing:
    """What routing decided for a command: the skill to run first (None: the planner
    starts) and the few skills the planner gets as tools."""

    route: Route | None
    tools: list[SkillRow]


def decide(
    command: str,
    skills: Sequence[SkillRow],
    start_url: str | None = None,
    workspace: Path | None = None,
) -> Routing:
    """The one decision a run asks of the router: the route of ``command`` among ``skills``
    (see :func:`route`) and the skills offered to the planner as tools (:func:`relevant`).
    A refused skill (its stored plan or code does not check, see harvest.stored) is
    neither: the next route that matches is taken instead (``workspace``: where rows
    checked before are noted)."""
    refused: set[int] = set()
    while True:
        kept = [s for s in skills if id(s) not in refused]
        chosen = route(command, kept, start_url)
        if chosen is None or refusal(chosen.skill, workspace) is None:
            break
        refused.add(id(chosen.skill))
    tools = [s for s in relevant(command, kept) if refusal(s, workspace) is None]
    return Routing(chosen, tools)


def route(command: str, skills: Sequence[SkillRow], start_url: str | None = None) -> Route | None:
    """The most specific routable skill whose template matches the whole command and whose
    parameters take the values read from it, if any; with ``start_url``, only skills learnt
    on that page (the same words may mean other steps on another site). Templates are
    looked up in an index by the command's words (see planner.route_index)."""
    found = routes(command, skills, start_url)
    return found[0] if found else None


def routes(command: str, skills: Sequence[SkillRow], start_url: str | None = None) -> list[Route]:
    """Every routable skill and template that matches ``command`` with values that fit,
    the most specific first: most literal words matched, then fewest characters taken by
    parameters, then the newest version. The command is read once: linear in its length."""
    if start_url and not site_of(start_url):
        return []  # a start page that names no site: no skill was learnt there
    index = index_of(skills)
    parsed = Command.parse(command)
    found = []
    for filed in index.candidates(parsed):
        skill, template = filed.skill, filed.template
        if not (routable(skill) and same_site(skill, start_url)):
            continue
        matched = match_template(parsed, template, index.verbs)
        if matched is None:
            continue
        try:
            arguments = {
                name: fit(gap, filed.schemas.get(name, {})) for name, gap in matched.values.items()
            }
        except Unfit:
            continue  # not applicable to this command: the planner takes it
        found.append(
            Route(skill, arguments, template.text, template.literal_words, matched.captured_chars)
        )
    return sorted(found, key=_specificity)


def _specificity(found: Route) -> tuple[float, ...]:
    """Sort key: most literal words, fewest captured characters, newest version first."""
    skill = found.skill
    created = skill.created_at.timestamp() if skill.created_at else 0.0
    return (-found.literal_words, found.captured_chars, -created, -skill.version, -(skill.id or 0))


_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)")
_BOOLEANS = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}


def fit(gap: Gap, schema: dict[str, Any]) -> Any:
    """The value of ``gap`` as its parameter's schema types it, or Unfit.

    A string is kept as written; ``integer`` and ``number`` must read as one; ``boolean``
    takes yes/no, true/false, on/off; an ``enum`` must name one of its values (any case);
    an ``array`` is split from "a, b and c" or "a, b, c" (a quoted value is one item) and
    each item fits the ``items`` schema.
    """
    kind = schema.get("type", "string")
    if kind == "array":
        items = [gap.value] if gap.quoted else split_list(gap.value)
        if not items:
            raise Unfit(f"no items in {gap.value!r}")
        item_schema = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return [fit(Gap(item, True), item_schema) for item in items]
    return _scalar(gap.value, kind, schema.get("enum"))


def _scalar(value: str, kind: object, enum: object) -> Any:
    """One value of a scalar JSON schema type."""
    text = value.strip()
    if kind == "integer":
        if not _INTEGER.fullmatch(text):
            raise Unfit(f"{value!r} is not a whole number")
        typed: Any = int(text)
    elif kind == "number":
        if not _NUMBER.fullmatch(text):
            raise Unfit(f"{value!r} is not a number")
        typed = float(text)
    elif kind == "boolean":
        if text.casefold() not in _BOOLEANS:
            raise Unfit(f"{value!r} is not yes or no")
        typed = _BOOLEANS[text.casefold()]
    elif kind == "string":
        typed = value
    else:
        raise Unfit(f"a command cannot give a value of type {kind!r}")
    if isinstance(enum, list) and enum:
        for option in enum:
            if str(option).casefold() == str(typed).casefold():
                return option
        raise Unfit(f"{value!r} is none of {enum!r}")
    return typed


_FILLER = {
    "the",
    "and",
    "for",
    "with",
    "from",
    "into",
    "then",
    "that",
    "this",
    "you",
    "your",
    "are",
    "was",
    "page",
    "args",
    "returns",
    "what",
    "done",
    "final",
    "url",
}


def _content_words(text: str) -> set[str]:
    """The words that say what a command is about (no short or filler words)."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _FILLER}


def relevant(
    command: str, skills: Sequence[SkillRow], limit: int = MAX_SKILL_TOOLS
) -> list[SkillRow]:
    """The few healthy skills whose templates share the most words with the command."""
    words = _content_words(command)

    def overlap(skill: SkillRow) -> int:
        text = " ".join(json.loads(skill.command_templates or "[]")) + " " + skill.docstring
        return len(words & _content_words(re.sub(r"\{\w+\}", " ", text)))

    scored = [(overlap(s), s.name, s) for s in skills if s.status == "healthy"]
    return [s for score, _name, s in sorted(scored, key=lambda t: (-t[0], t[1])) if score][:limit]
