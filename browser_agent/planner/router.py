"""System 1: harvested skills as direct routes and as planner tools.

A command that matches a healthy skill's template runs that skill with zero LLM calls.
Matching tolerates wording but not meaning (see planner.templates): case, quotes, spacing,
punctuation and filler words do not matter, a different word or an extra clause does.
When several skills match, the most specific wins: the most literal words matched, then
the fewest characters taken by parameters, then the newest version. Each value is checked
against its parameter's type in the skill's signature first (an integer must read as one,
a list is split from "a, b and c"); a value that does not fit makes the skill not
applicable to the command, which then goes to the planner.

A skill whose step no longer fits the page is healed at the smallest scope first (see
harvest.runtime); a repaired or failed skill is marked stale with the failing step and
selector, and when it failed the planner carries on from the page as it is. A skill that
does not apply to the command (a name from the command is not on the page) stays healthy
and counts no failure; the planner is told so and carries on.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from browser_agent.browser.awaiting import paced
from browser_agent.browser.errors import ActionError, BrowserError
from browser_agent.browser.session import session
from browser_agent.failure_kinds import BROKEN, LATE, NOT_APPLICABLE, classify
from browser_agent.harvest.loader import SkillLoadError, load_skill
from browser_agent.harvest.replay import waits_for_secret
from browser_agent.harvest.runtime import (
    Repair,
    Repairs,
    SkillNotApplicable,
    SkillStale,
    StepHelper,
    repairing,
)
from browser_agent.planner.route_index import index_of
from browser_agent.planner.templates import (
    Command,
    Gap,
    match_template,
    split_list,
)
from browser_agent.store.connection import Store
from browser_agent.store.health import OK, note_run, recorded_pace
from browser_agent.store.rows import SkillRow
from browser_agent.store.skill_use import loads, mark_stale, same_site, site_of

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


class Unfit(ValueError):
    """A value read from a command does not fit its parameter's type."""


def routable(skill: SkillRow) -> bool:
    """A skill that may do a whole command: complete, and healthy or only unverified for
    want of a secret that the command itself supplies."""
    waiting_for_secret = skill.status == "candidate" and waits_for_secret(skill.last_error)
    return skill.complete and (skill.status == "healthy" or waiting_for_secret)


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


@dataclass
class SkillOutcome:
    """What calling a skill gave: its answer, or a plain-words failure for the planner;
    ``repairs`` lists the steps that only went on after healing or the planner's help;
    ``not_applicable`` is set when the skill did not apply to the command (it is not
    broken, and it did not do the command either)."""

    text: str
    ok: bool
    stale: SkillStale | None = None
    repairs: list[Repair] = field(default_factory=list)
    not_applicable: SkillNotApplicable | None = None
    # what it says of the skill's health: ok, late (done late, or failed so), not_applicable,
    # broken (failed, or done only through repairs); see failure_kinds
    kind: str = ""


async def call_skill(
    store: Store,
    skill: SkillRow,
    function: Callable[..., Awaitable[str]],
    arguments: dict,
    helper: StepHelper | None = None,
) -> SkillOutcome:
    """Run a skill, healing stale selectors (and asking ``helper`` for a step healing cannot
    fix), its steps paced as the site's recorded steps were. Each failure has a kind (see
    failure_kinds) and only a broken one counts against the skill: it is marked stale,
    its healed selectors kept for the next version. A late one (the page or the browser
    was slower than the step's deadline, twice) and one that does not apply to the command
    leave it healthy; every outcome is kept in the skill's health window (store.health)."""
    with repairing(helper) as repairs, paced(recorded_pace(store, skill)) as pace:
        try:
            answer = await function(**arguments)
        except SkillNotApplicable as exc:
            _note(store, skill, NOT_APPLICABLE, exc)
            return _not_applicable(store, skill, repairs, exc)
        except SkillStale as exc:
            url = _url()
            _mark_stale(store, skill, repairs, f"step {exc.step}: {exc}")
            _note(store, skill, BROKEN, exc)
            return SkillOutcome(
                f"The harvested skill {skill.name} failed at its step {exc.step} on {url}: "
                f"{exc}{_repaired_before(repairs)} It is marked stale. Carry on with the "
                "primitive tools from the page as it is.",
                False,
                exc,
                repairs.done,
                kind=BROKEN,
            )
        except (ActionError, BrowserError) as exc:
            kind = classify(exc)
            if repairs.done:  # it had already left its recorded path: out of date
                said = f"{_repaired_before(repairs)} Then: {exc}".strip()
                _mark_stale(store, skill, repairs, said)
            _note(store, skill, kind, exc)
            late = " The page or the browser was late, which does not count against it."
            return SkillOutcome(
                f"The harvested skill {skill.name} failed on {_url()}: {exc}"
                f"{_repaired_before(repairs)}{late if kind == LATE else ''} Carry on with the "
                "primitive tools from the page as it is.",
                False,
                repairs=repairs.done,
                kind=kind,
            )
    done = LATE if pace.late else OK  # it did the command, with a step that came late
    if repairs.done:
        said = " ".join(repair.said() for repair in repairs.done)
        _mark_stale(store, skill, repairs, said)
        _note(store, skill, BROKEN, SkillStale(said, step=repairs.done[0].step, selector=""), done)
        return SkillOutcome(
            f"The harvested skill {skill.name} needed repairs on the way: {said} It finished, "
            f"but is marked stale until it passes validation. {answer}",
            True,
            repairs=repairs.done,
            kind=BROKEN,  # done, but not as recorded: its targets are gone
        )
    _note(store, skill, done)
    return SkillOutcome(str(answer), True, kind=done)


def _note(
    store: Store,
    skill: SkillRow,
    kind: str,
    error: Exception | None = None,
    counted: str | None = None,
) -> None:
    """Count the use (as ``counted``, else ``kind``) and keep its outcome in the skill's
    health window."""
    note_run(
        store,
        skill.id,
        kind,
        window=session().settings.health_window,
        step=getattr(error, "step", None) or None,
        error=str(error) if error is not None else None,
        counted=counted,
    )


def _not_applicable(
    store: Store, skill: SkillRow, repairs: Repairs, exc: SkillNotApplicable
) -> SkillOutcome:
    """The outcome of a skill that stopped because the command does not fit it."""
    state = "It is not broken and stays healthy"
    if repairs.done:  # the steps before needed repairs: out of date all the same
        _mark_stale(store, skill, repairs, _repaired_before(repairs).strip())
        state = f"{_repaired_before(repairs).strip()} So it is marked stale"
    return SkillOutcome(
        f"The harvested skill {skill.name} does not apply to this command, so it did not do "
        f"the task: {exc} {state}. The browser is on {_url()}. Carry on with the primitive "
        "tools from the page as it is.",
        False,
        repairs=repairs.done,
        not_applicable=exc,
        kind=NOT_APPLICABLE,
    )


def _mark_stale(store: Store, skill: SkillRow, repairs: Repairs, error: str) -> None:
    """Mark the skill stale and keep its healed selectors as candidates for a next version."""
    healed = loads(skill.healed)
    healed = healed if isinstance(healed, dict) else {}
    for step, selectors in repairs.kept().items():
        healed.setdefault(step, {}).update(selectors)
    skill.status = "stale"
    mark_stale(store, skill.id, error, json.dumps(healed))


def _repaired_before(repairs: Repairs) -> str:
    if not repairs.done:
        return ""
    return " Before that, " + " ".join(repair.said() for repair in repairs.done)


def _url() -> str:
    try:
        return session().current_page().url
    except BrowserError:
        return "an unknown page"


def skill_tools(
    store: Store, command: str, skills: Sequence[SkillRow]
) -> dict[str, Callable[..., Awaitable[str]]]:
    """The most relevant healthy ones of ``skills`` as planner tools, named after the skill."""
    tools = {}
    for skill in relevant(command, [s for s in skills if s.status == "healthy"]):
        try:
            function = load_skill(skill)
        except SkillLoadError:
            continue
        tools[skill.name] = _as_tool(store, skill, function)
    return tools


def _as_tool(
    store: Store, skill: SkillRow, function: Callable[..., Awaitable[str]]
) -> Callable[..., Awaitable[str]]:
    """A tool with the skill's signature whose failures come back as plain words."""

    async def tool(**arguments: Any) -> str:
        if skill.status != "healthy":
            return f"The harvested skill {skill.name} is stale; use the primitive tools."
        outcome = await call_skill(store, skill, function, arguments)
        if not outcome.ok:
            kind = "skill_not_applicable" if outcome.not_applicable else "skill_failed"
            raise ActionError(outcome.text, kind=kind)
        return outcome.text

    tool.__name__ = skill.name
    tool.__doc__ = function.__doc__
    tool.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    tool.__annotations__ = dict(function.__annotations__)
    return tool
