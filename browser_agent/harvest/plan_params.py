"""The parameters of a skill: a value of the command a step used becomes one, named for
the field it went into, in the letter case the command asks for; one per place the
command says it."""

from __future__ import annotations

import re
from typing import Any

from browser_agent.harvest.plan_state import PlanState
from browser_agent.harvest.plan_words import (
    LETTER_CASE,
    near_words,
    plain,
    quoted_values,
    where_said,
)
from browser_agent.plans.plan import (
    RESERVED_NAMES,
    Cased,
    ElementRecord,
    Param,
    PlannedStep,
    looks_generated,
    param_items,
    snake,
)
from browser_agent.secrets import MASK, PLACEHOLDER

VALUE_ARGS = ("text", "option")
_SELECTED = re.compile(r"Selected option '[^']*' \((.+?)\) in ")


def _param_name(
    element: ElementRecord | None, argument: str, near: str = "", command: str = ""
) -> str:
    """A parameter named for what the field is: the name its label or aria-label gives
    (before any help text), else its id, name or placeholder, else the command's words
    around the value, else the kind of value. A search box's value is a ``search_term``
    when the command searches; else the command names what the run looked up ("assign
    ticket #9", "remove the milestone X" reached through the site's search)."""
    if element is None:
        return near or snake(argument)
    attrs = element.attributes
    if element.role == "searchbox" or attrs.get("name") in {"q", "query", "search"}:
        if near and not _SEARCHING.search(command) and near.split("_")[0] not in _ASKING:
            return near
        return "search_term"
    if attrs.get("type") == "password":
        return "password"
    for label in (element.name, element.context.get("label"), attrs.get("aria-label")):
        named = _label_name(label or "")
        if named:
            return named
    for attribute in ("id", "name"):
        named = attribute_name(attrs.get(attribute, ""))
        if named:
            return named
    return _label_name(attrs.get("placeholder", "")) or near or snake(argument)


# Words a label adds that say nothing of what the value is.
_BOILERPLATE = re.compile(r"\((?:[^)]*)\)|\b(?:required|optional|mandatory)\b|[*]", re.I)
# Prefixes markup gives field ids and names ("field-summary", "input_email").
_MARKUP_WORDS = frozenset({"field", "fields", "input", "txt", "fld", "frm", "form", "id"})


# A command that searches (its values typed in a search box are what it searches for).
_SEARCHING = re.compile(r"\b(?:search|find|look|query|filter)", re.I)

# Words of a label that tell what to do with the field ("Add title", "Enter your email").
_ASKING = frozenset({"add", "enter", "type", "insert", "write", "choose", "select", "pick",
                     "your", "a", "an", "the", "new"})  # fmt: skip


def _label_name(label: str) -> str:
    """The name a field's label gives it: its words before a colon, boilerplate and the
    words asking to fill it in dropped; empty when the label is a sentence of help ("You
    may use WikiFormatting here.")."""
    head = _BOILERPLATE.sub(" ", label.split(":")[0]).strip()
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", head)
    while len(words) > 1 and words[0].lower() in _ASKING:
        words = words[1:]
    if not words or len(words) > 3 or head.endswith((".", "!", "?")):
        return ""
    return snake(" ".join(words))


def attribute_name(value: str) -> str:
    """A name from a field's id or name attribute, without markup prefixes (``field-``);
    of a long one its last word, what the field holds (``action_reassign_reassign_owner``
    gives ``owner``); empty when it holds index numbers (``fields[multi_edit][0][2]``),
    looks generated or is too short to say anything."""
    if not value or looks_generated(value):
        return ""
    words = [w for w in re.findall(r"[a-z]+", value.lower()) if w not in _MARKUP_WORDS]
    words = words[-1:] if len(words) > 3 else words
    if not words or re.search(r"\d", value) or len("".join(words)) < 3:
        return ""  # "tt" or "f2" says nothing
    return snake(" ".join(words))


def param_for(
    state: PlanState,
    name: str,
    description: str,
    example: Any,
    kind: str = "str",
    said: re.Match[str] | None = None,
) -> Param:
    """The parameter for a value of the command: one per place the command says it,
    whatever the steps that use it (typed into a search box, then the result of that
    name clicked), so that one value of the command is one argument."""
    span = said.span() if said else None
    for existing in state.params:
        if span is not None and state.spans.get(existing.name) == span:
            if existing.kind == kind:
                return existing
        elif span is None and existing.name.startswith(name) and existing.example == example:
            return existing
    taken = {p.name for p in state.params} | RESERVED_NAMES
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}_{n}", n + 1
    param = Param(unique, description, example, kind, said.group(0) if said else "")
    state.params.append(param)
    if span is not None:
        state.spans[unique] = span
    return param


def step_value(
    state: PlanState, step: PlannedStep | None, key: str, value: Any, response: str = ""
) -> Any:
    """A literal, or a parameter when the value came from the command (typed text keeps
    the letter case the command asks for, a number field's value is an int)."""
    if not isinstance(value, str) or key not in (*VALUE_ARGS, "url"):
        return value
    element = next(iter(step.targets.values()), None) if step else None
    if value == MASK:  # the command names it masked, if at all
        masked = re.search(re.escape(MASK), state.log.command)
        return param_for(state, "password", "The password (never stored)", "", "str", masked)
    candidates = [value]
    chosen = _SELECTED.search(response) if key == "option" else None
    if chosen:
        candidates.append(chosen.group(1))  # the option's label, as the command says it
    if key == "text" and step is not None and where_said(value, state.log.command) is None:
        added = _added(state, value)
        if added is not None:  # typed after what the field held: the value is added
            step.arguments["append"] = True
            candidates = [added]
    for candidate in candidates:
        said = where_said(candidate, state.log.command)
        if said is None:
            continue
        label = key
        if element is not None:
            attrs = element.attributes
            label = (
                element.name
                or element.context.get("label")
                or attrs.get("placeholder")
                or attrs.get("name")
                or key
            )
        near = near_words(state.log.command, said.start(), said.end())
        name = _param_name(element, key, near, state.log.command)
        description = f"{label} (example: {said.group(0)})"
        if PLACEHOLDER.fullmatch(said.group(0)):
            description = f"{label}: a secret, as its placeholder (example: {said.group(0)})"
        number = element is not None and element.attributes.get("type") == "number"
        if number and re.fullmatch(r"-?\d+", said.group(0)):
            return param_for(state, name, description, int(said.group(0)), "int", said)
        param = param_for(state, name, description, said.group(0), "str", said)
        if key == "text" and candidate != said.group(0):
            return _cased(state, param, candidate, said.group(0))
        return param
    return value


def _added(state: PlanState, typed: str) -> str | None:
    """The quoted value of the command a typed text ends with, after other text (what
    the field held, kept in front: "edit X to add "Y"" typed as its old text then Y);
    None when it ends with none."""
    text = typed.rstrip()
    for value in sorted(quoted_values(state.log.command), key=len, reverse=True):
        if len(value) > 2 and text.endswith(value) and text[: -len(value)].strip():
            return value
    return None


def _cased(state: PlanState, param: Param, typed: str, said: str) -> Any:
    """The command said "tora" and "in all upper case letters"; "TORA" was typed."""
    case = "upper" if typed == said.upper() else "lower" if typed == said.lower() else ""
    if not case:
        return param
    word = LETTER_CASE.search(state.log.command)
    if word is None or word.group(1).lower() != case:
        return Cased(param, case)
    described = "Letter case of the typed text: upper or lower"
    return Cased(param, param_for(state, "letter_case", described, case, "case", word))


def read_off_page(state: PlanState, typed: str) -> bool:
    """Typed text the command does not say but an observed page showed: it was read."""
    return where_said(typed, state.log.command) is None and plain(typed) in state.page_texts


def holds_a_value(state: PlanState, *texts: str, params: list[Param] | None = None) -> bool:
    """Whether any of the texts holds a word of a value the command gave so far (a
    result named like the search term was picked by matching it), or of ``params``."""
    said = {
        w.casefold()
        for p in (state.params if params is None else params)
        for item in param_items(p)
        for w in re.findall(r"\w{2,}", item)
    }
    return any(w.casefold() in said for text in texts for w in re.findall(r"\w{2,}", text))
