"""Selectors from the names a step's element goes by: its exact role and name, its name up
to the marks around its words ("count ▼"), or the name a command gives in place of the
recorded one."""

from __future__ import annotations

import re

from browser_agent.skills.selectors import ANY_ROLE, CLOSE_MARKS, text_selector
from browser_agent.skills.targets import Target

_REGEX_SYNTAX = set("^$\\.*+?()[]{}|/")


def same(a: str, b: str) -> bool:
    """Whether two labels are one, spaces and case aside."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def bare(text: str) -> str:
    """A label without the marks around its words (sort arrows, bullets, colons): "count
    ▼" and "count" are one label, as a column header's name changes once sorted."""
    words = " ".join(text.split()).casefold()
    start, end = 0, len(words)
    while start < end and not words[start].isalnum():
        start += 1
    while end > start and not words[end - 1].isalnum():
        end -= 1
    return words[start:end]


def marked(label: str) -> bool:
    """Whether ``label`` has marks around its words ("count ▼", "• Home")."""
    return bool(bare(label)) and bare(label) != " ".join(label.split()).casefold()


def same_words(a: str, b: str) -> bool:
    """Whether two labels are one, spaces, case and the marks around their words aside."""
    return same(a, b) or (bool(bare(b)) and bare(a) == bare(b))


def by_role(role: str, name: str) -> str:
    """A Playwright selector for the element with this role and exact accessible name."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'role={role}[name="{escaped}"s]'


_BY_ROLE = re.compile(r'^role=([a-z]+)\[name="((?:[^"\\]|\\.)*)"s\]$')


def role_and_name(selector: str) -> tuple[str, str] | None:
    """(role, name) of a selector ``by_role`` made; None for any other selector."""
    found = _BY_ROLE.match(selector)
    if found is None:
        return None
    return found.group(1), re.sub(r"\\(.)", r"\1", found.group(2))


def by_marks(role: str, name: str) -> str:
    """A selector for the element with this role whose name is ``name`` up to marks around
    its words and case (see ``bare``)."""
    words = bare(name).split(" ")
    escaped = ["".join(f"\\{c}" if c in _REGEX_SYNTAX else c for c in w) for w in words]
    other = "[^\\p{L}\\p{N}]*"
    spaced = "\\s+".join(escaped)
    return f"role={role}[name=/^{other}{spaced}{other}$/iu]"


def within_name(role: str, value: str) -> str:
    """A selector for the element with this role whose name holds ``value`` as whole words,
    case aside, among words of its own ("Bug #6 (New): <value>")."""
    words = " ".join(value.split()).split(" ")
    escaped = ["".join(f"\\{c}" if c in _REGEX_SYNTAX else c for c in w) for w in words]
    edge, spaced = "[\\p{L}\\p{N}]", "\\s+".join(escaped)
    return f"role={role}[name=/(?<!{edge}){spaced}(?!{edge})/iu]"


def holds(found: str, value: str) -> bool:
    """Whether the name ``found`` holds ``value`` as whole words, spaces and case aside."""
    pattern = r"\s+".join(re.escape(w) for w in value.split())
    return bool(pattern) and re.search(rf"(?<![^\W_]){pattern}(?![^\W_])", found, re.I) is not None


def by_name(target: Target, name: str) -> str:
    """The selector for the element of the target's role that a command names: the name
    exact but for case; an "x" names a close button; an element with no role by its text."""
    if target.role == "button" and name.strip().lower() in CLOSE_MARKS:
        return "role=button[name=/^\\s*(close|dismiss|x|\u00d7|\u2715|\u2716)\\s*$/i]"
    if not target.role or target.role == ANY_ROLE:
        return text_selector(target.tag, name)
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    if named_by_value(target):
        group = target.attributes.get("name", "").replace("\\", "\\\\").replace('"', '\\"')
        within = f'[name="{group}"]' if group else ""
        return f'input[type="{target.role}"]{within}[value="{escaped}" i]'
    return f'role={target.role}[name="{escaped}"i]'


def named_by_value(target: Target) -> bool:
    """Whether the target is a box with no label, recorded by its value (a list's row
    checkbox: see harvest.elements.by_value); a command names it by that value."""
    value = target.attributes.get("value")
    return target.role in ("checkbox", "radio") and bool(value) and value == target.name


def named(target: Target, name: str) -> bool:
    """Whether the step's element is found by its role and a name of words."""
    return bool(target.role) and target.role != ANY_ROLE and bool(bare(name))
