"""The addresses of a skill: the pages its steps open and where the run ended, built from
the command's values (``/ticket/9`` for "ticket #9"), and whether a path varies."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from browser_agent.browser.effects import SENT_DATA
from browser_agent.harvest.calls import ChatLog
from browser_agent.harvest.plan_params import attribute_name, param_for
from browser_agent.harvest.plan_state import PlanState
from browser_agent.harvest.plan_words import NAMING_GAP, near_words, where_said, within_quotes
from browser_agent.plans.plan import (
    RUN_ENDED,
    BuiltUrl,
    ByRoleName,
    Param,
    PlannedStep,
    made_by_the_app,
    param_items,
)
from browser_agent.skills.fresh import TYPING

_NAVIGATED = re.compile(
    r"(?:navigated to|page loaded:|loaded|now on|url(?: is)?:?)\s+(https?://[^\s'\"<>]+?)[.,;]?(?:\s|$)",
    re.IGNORECASE,
)


def url_after(response: str) -> str | None:
    """The URL a response says the page went to, if any."""
    match = _NAVIGATED.search(response or "")
    return match.group(1) if match else None


def relative(url: str) -> str:
    """The path and query of an address: how a step's page is kept."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def went_by_get(state: PlanState, step: PlannedStep, url: str, response: str) -> BuiltUrl | None:
    """The address a button's click went to, built from values the skill already
    takes, when the click sent nothing to the site (as a log says, see _says_sent); a
    link finds its own address again when relabelled (see skills.runtime)."""
    roles = {target.role for target in step.targets.values()}
    if step.primitive != "click" or roles != {"button"} or not _says_sent(state.log):
        return None
    if SENT_DATA in response:
        return None
    return _address_of(state, url)


def _address_of(state: PlanState, url: str) -> BuiltUrl | None:
    """``url`` built from the command's values the skill already takes (literal where
    it holds none); None when it holds a value no step took."""
    kept = (list(state.params), dict(state.spans), dict(state.in_address))
    built = address_url(state, url)
    state.params[:], state.spans, state.in_address = kept  # building it adds nothing
    if isinstance(built, str):
        return BuiltUrl([built])
    known = {id(p) for p in state.params}
    return built if all(id(p) in known for p in _params_in(built)) else None


def end_address(state: PlanState) -> BuiltUrl | None:
    """The address the run ended on, built from the command's values, when a step typed
    them, the address holds every one of them, and no step sent data to the site (a
    search's results page, a filtered table: a plain GET gives the same page). Only
    logs that say what a step sent count (see _says_sent); None for others."""
    if state.ended != RUN_ENDED or not _says_sent(state.log) or not state.end_url:
        return None
    if any(SENT_DATA in (call.response or "") for call in state.log.calls):
        return None
    typed = {
        p.name
        for step in state.steps
        if step.primitive in TYPING
        for p in _params_in(step.arguments.get("text"))
    }
    built = _address_of(state, state.end_url)
    if not typed or built is None:
        return None
    if {p.name for p in _params_in(built)} != {p.name for p in state.params}:
        return None  # a value the address does not hold
    return built


def keep_labels_literal(state: PlanState) -> None:
    """An address value that is the word naming the command's next value ("category"
    of `add the category "Trees"`, opened as ``?taxonomy=category``) is the kind of
    thing, not a value: it stays literal, or the template would be two parameters
    with nothing between them and no command could be routed to it."""
    used: dict[bool, set[str]] = {True: set(), False: set()}  # in an address or not
    for step in state.steps:
        for value in [*step.arguments.values(), step.address]:
            used[isinstance(value, BuiltUrl)] |= {p.name for p in _params_in(value)}
    starts = sorted(span[0] for span in state.spans.values())
    labels = set()
    for name in (used[True] - used[False]) & state.spans.keys():
        end = state.spans[name][1]
        following = next((start for start in starts if start >= end), None)
        if following is not None and NAMING_GAP.fullmatch(state.log.command[end:following]):
            labels.add(name)
    if not labels:
        return

    def literal(value: BuiltUrl) -> list[str | Param]:
        return [
            state.in_address[p.name] if isinstance(p, Param) and p.name in labels else p
            for p in value.parts
        ]

    for step in state.steps:
        for key, value in step.arguments.items():
            if isinstance(value, BuiltUrl):
                step.arguments[key] = built_or_plain(literal(value))
        if step.address is not None:
            step.address = BuiltUrl(literal(step.address))
    state.params = [p for p in state.params if p.name not in labels]
    for name in labels:
        state.spans.pop(name, None)


def address_url(state: PlanState, url: str) -> str | BuiltUrl:
    """The address a step opened, with each path segment (past the first, which names
    the app's section) or query value the command says as a parameter."""
    parts = urlsplit(url)
    pieces: list[str | Param] = [f"{parts.scheme}://{parts.netloc}"]
    segments = parts.path.split("/")
    for index, segment in enumerate(segments):
        if index:
            pieces.append("/")
        pieces.append(_url_value(state, unquote(segment), segment, index > 1, segments[:index]))
    if parts.query:
        pieces.append("?")
        for index, pair in enumerate(parts.query.split("&")):
            key, equals, value = pair.partition("=")
            pieces.append(("&" if index else "") + key + equals)
            if value:
                plain = unquote(value.replace("+", " "))
                pieces.append(_url_value(state, plain, value, True, [key]))
    if parts.fragment:
        pieces.append(f"#{parts.fragment}")
    if not any(isinstance(p, Param) for p in pieces):
        return url
    return built_or_plain(pieces)


def _url_value(
    state: PlanState, value: str, raw: str, deep: bool, before: list[str]
) -> str | Param:
    """A parameter for a piece of an address the command says (``9`` of "ticket #9"),
    else the piece as it was."""
    said = where_said(value, state.log.command) if value and deep else None
    if said is None or state.quoted_only and not within_quotes(state.log.command, said):
        return raw
    near = near_words(state.log.command, said.start(), said.end())
    key = next((b for b in reversed(before) if b), "")  # the query key, or the segment
    search = "search_term" if key.lower() in {"q", "query", "search"} else ""
    name = near or search or attribute_name(key) or "value"
    description = f"{name.replace('_', ' ')} in the address (example: {value})"
    param = param_for(state, name, description, said.group(0), "str", said)
    state.in_address[param.name] = raw
    return param


def address_shape(href: str) -> tuple[str, ...]:
    """An address with its values set aside: the path's folder and the query's keys
    ("/wiki/Gamma" and "/wiki/Delta" are of one shape, "?_sort=a" and "?_sort=b" too)."""
    if not href:
        return ()
    parts = urlsplit(href.strip("\"'"))
    folder = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    return (folder, *sorted(key for key, _value in parse_qsl(parts.query, True)))


def built_or_plain(pieces: list[str | Param]) -> str | BuiltUrl:
    """An address from its pieces: plain when no parameter is left in it."""
    if not any(isinstance(p, Param) for p in pieces):
        return "".join(p for p in pieces if isinstance(p, str))
    merged: list[str | Param] = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        elif piece != "":
            merged.append(piece)
    return BuiltUrl(merged)


def _says_sent(log: ChatLog) -> bool:
    """Whether the log says when a step sent data to the site (this project's runs since
    they do, see planner.records.SAYS): only then does saying nothing mean nothing sent."""
    return log.meta.get("sent_data_said") is True


def _params_in(value: Any) -> list[Param]:
    """The parameters a step's argument uses."""
    if isinstance(value, Param):
        return [value]
    if isinstance(value, ByRoleName):
        return [value.param]
    if isinstance(value, BuiltUrl):
        return [p for p in value.parts if isinstance(p, Param)]
    return []


def path_varies(path: str, params: list[Param]) -> bool:
    """Whether a path the run went to holds a value of the command or a number the app
    gave (a new record's): another instance goes elsewhere."""
    values = {str(v) for p in params for v in param_items(p)}
    segments = [unquote(s) for s in urlsplit(path).path.split("/")]
    return bool(values & set(segments)) or made_by_the_app(path, params)
