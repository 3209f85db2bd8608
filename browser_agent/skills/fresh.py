"""Fresh example values for replaying a skill on a world its demonstration changed.

A skill that types a value (a title, a name, a comment) and submits it changes the
application's state: replaying it with the demonstration's own value finds that value
already there (the page exists, the user is taken). A parameter the skill only types or
quotes into an address it opens (the name of a page it creates at /wiki/NAME), and never
uses to name an element to find or an option to choose, gets a value of the same kind
that nobody used before: the example's text with a short unique suffix, a number nudged.
A parameter that names something on the page keeps its example: it must exist. (A fresh
address that names nothing is no loss: the replay falls back to the example's values.)
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from browser_agent.secrets import placeholders

if TYPE_CHECKING:
    from browser_agent.store.rows import SkillRow

# The primitives whose ``text`` argument is typed into a field.
TYPING = frozenset({"enter_text", "enter_text_and_click", "bulk_enter_text"})
_NUMBER = re.compile(r"-?\d+")


def example_arguments(skill: SkillRow, start_url: str | None) -> dict[str, str]:
    """The arguments the skill was learnt with (secrets as their ``{NAME}`` placeholders)."""
    arguments = json.loads(skill.example_args or "{}")
    if start_url:
        arguments["start_url"] = start_url
    return arguments


FRESH_USES = frozenset({"typed", "addressed"})


def typed_only(source: str, uses: frozenset[str] = FRESH_USES) -> set[str]:
    """Names of the skill function's parameters that its code types (as the ``text`` of a
    typing primitive) or quotes into an address (the ``uses`` asked for), and otherwise
    only reports (``done``) or checks as held (``expect``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    functions = [node for node in tree.body if isinstance(node, ast.AsyncFunctionDef)]
    if not functions:
        return set()
    function = functions[-1]
    params = {arg.arg for arg in function.args.args + function.args.kwonlyargs}
    parents = {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}
    found: dict[str, set[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in params and isinstance(node.ctx, ast.Load):
            found.setdefault(node.id, set()).add(_use(node, parents))
    return {name for name, used in found.items() if used & uses and "other" not in used}


def _use(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> str:
    """How ``node`` is used: typed (the text of a typing call), addressed (quoted into an
    address), said (a value of ``done``, or what ``expect`` checks a field holds) or other
    (a name to find, an option, ...)."""
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.Call) and _called(parent) == "quote" and parent.args:
            return "addressed" if parent.args[0] is node else "other"
        if isinstance(parent, ast.keyword) and isinstance(parents.get(parent), ast.Call):
            name = _called(parents[parent])
            if name in ("done", "expect"):  # reported, or checked as held: neither decides
                return "said"
            return "typed" if name in TYPING and parent.arg == "text" else "other"
        if isinstance(parent, ast.Call) and _called(parent) == "done":
            return "said"
        if isinstance(parent, ast.Call) and not (parent.args and parent.args[0] is node):
            return "other"  # how the text is shaped (a letter case), not the text itself
        node = parent
    return "other"


def _called(call: ast.AST) -> str:
    func = getattr(call, "func", None)
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def fresh_value(value: Any, mark: str) -> Any:
    """A value of ``value``'s kind nobody typed before: a number nudged, a text marked with
    ``mark`` (before an address's @, joined to one word before its closing marks, after
    a space to several)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return value
    if isinstance(value, int):
        return value + 1
    if not value.strip() or placeholders(value):
        return value
    if _NUMBER.fullmatch(value.strip()):
        return str(int(value) + 1)
    if "@" in value and " " not in value:
        local, _, domain = value.partition("@")
        return f"{local}{mark}@{domain}"
    if " " in value.strip():
        return f"{value} {mark}"
    word, end = re.fullmatch(r"(.*?)(\W*)", value, re.DOTALL).groups()  # type: ignore[union-attr]
    return f"{word}{mark}{end}"  # "Runbook." gives "Runbookab12c.", not a host's name


def fresh_arguments(
    source: str, arguments: Mapping[str, Any], uses: frozenset[str] = FRESH_USES
) -> dict[str, Any]:
    """``arguments`` with a fresh value for every parameter the skill only types (or
    quotes into an address, with the default ``uses``), unless another parameter that
    names something on the page holds the same value (a term typed into a search, then
    the result of that name clicked: it must exist)."""
    mark = uuid.uuid4().hex[:5]
    typed = typed_only(source, uses)
    named = {_words(value) for name, value in arguments.items() if name not in typed} - {""}
    typed = {name for name in typed if _words(arguments.get(name)) not in named}
    return {
        name: fresh_value(value, mark) if name in typed and name != "start_url" else value
        for name, value in arguments.items()
    }


def _words(value: Any) -> str:
    """A value as compared with another: its words, case set aside."""
    return " ".join(re.sub(r"[\W_]+", " ", str(value).casefold()).split())
