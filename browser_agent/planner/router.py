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

A skill that matches the command but is not taken (refused, stale, not yet verified,
partial) is named in the decision with why, so that the run can tell the person instead of
falling back to the planner without a word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from browser_agent.errors import BrowserAgentError
from browser_agent.planner.route_index import index_of
from browser_agent.planner.templates import (
    Command,
    Gap,
    match_template,
    split_list,
)
from browser_agent.skills.stored import refusal
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import same_site, site_of

MAX_SKILL_TOOLS = 3


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
class PassedOver:
    """A skill that matches the command but was not run: its name and version, its state
    (``refused``, or its status), why in one line, and what carries on instead."""

    skill: str
    version: int
    state: str
    why: str
    instead: str

    def said(self) -> str:
        """The one line that tells the person."""
        why = f" ({self.why})" if self.why else ""
        skill = f"Skill {self.skill} v{self.version}"
        return f"{skill} is {self.state}{why}; carrying on with {self.instead}."


@dataclass
class Routing:
    """What routing decided for a command: the skill to run first (None: the planner
    starts), the few skills the planner gets as tools, and the matching skills passed over."""

    route: Route | None
    tools: list[SkillRow]
    passed_over: list[PassedOver] = field(default_factory=list)


def decide(
    command: str,
    skills: Sequence[SkillRow],
    start_url: str | None = None,
    workspace: Path | None = None,
) -> Routing:
    """The one decision a run asks of the router: the route of ``command`` among ``skills``
    (see :func:`route`) and the skills offered to the planner as tools (:func:`relevant`).
    Whether a skill may be routed is its stored ``routable`` field. A refused route (its
    stored plan or code does not check, see skills.stored) is not taken: the next route
    that matches is taken instead (``workspace``: where rows checked before are noted,
    read here and never written; the caller that runs the route notes it). Only the route
    is checked: a tool the planner is offered is checked when it is loaded. The skills
    that match but are not taken are named, with why: the refused ones, and when no skill
    is taken those not routable now."""
    refused: list[tuple[SkillRow, str]] = []
    kept = list(skills)
    chosen = route(command, kept, start_url)
    while chosen is not None and (why := refusal(chosen.skill, workspace, note=False)):
        refused.append((chosen.skill, why))
        kept = [s for s in kept if s is not chosen.skill]
        chosen = route(command, kept, start_url)
    tools = relevant(command, kept)
    instead = "the planner" if chosen is None else f"{chosen.skill.name} v{chosen.skill.version}"
    passed = [PassedOver(s.name, s.version, "refused", why, instead) for s, why in refused]
    if chosen is None:
        unused = routes(command, skills, start_url, usable=_not_routable)
        passed += [_passed(found.skill, instead) for found in _first_per_skill(unused)]
    return Routing(chosen, tools, passed)


def _not_routable(skill: SkillRow) -> bool:
    """A skill that matches commands but may not do one now (retired ones are put aside)."""
    return skill.status != "retired" and not skill.routable


def _first_per_skill(found: list[Route]) -> list[Route]:
    """Each skill's most specific route, in order."""
    first: dict[int, Route] = {}
    for found_route in found:
        first.setdefault(id(found_route.skill), found_route)
    return list(first.values())


def _passed(skill: SkillRow, instead: str) -> PassedOver:
    """Why a matching skill that is not routable was passed over, in its own words."""
    error = " ".join((skill.last_error or "").split())
    if not skill.complete:
        state, why = "partial", "it leaves out a step its command names"
    elif skill.status == "candidate":
        state, why = "not verified yet", error
    else:
        state, why = skill.status, error
    return PassedOver(skill.name, skill.version, state, why, instead)


def route(command: str, skills: Sequence[SkillRow], start_url: str | None = None) -> Route | None:
    """The most specific routable skill whose template matches the whole command and whose
    parameters take the values read from it, if any; with ``start_url``, only skills learnt
    on that page (the same words may mean other steps on another site). Templates are
    looked up in an index by the command's words (see planner.route_index)."""
    found = routes(command, skills, start_url)
    return found[0] if found else None


def routes(
    command: str,
    skills: Sequence[SkillRow],
    start_url: str | None = None,
    usable: Callable[[SkillRow], bool] | None = None,
) -> list[Route]:
    """Every ``usable`` (by default: its stored ``routable`` field) skill and template that
    matches ``command`` with values that fit, the most specific first: most literal words
    matched, then fewest characters taken by parameters, then the newest version. The
    command is read once: linear in its length."""
    if start_url and not site_of(start_url):
        return []  # a start page that names no site: no skill was learnt there
    index = index_of(skills)
    parsed = Command.parse(command)
    found = []
    for filed in index.candidates(parsed):
        skill, template = filed.skill, filed.template
        ok = skill.routable if usable is None else usable(skill)
        if not (ok and same_site(skill, start_url)):
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
