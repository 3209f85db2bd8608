"""State made for a replay: a skill that needs a named thing is verified on one made for it.

A skill whose parameter names something on the page (the database to drop, the user to
delete) cannot be replayed on the demonstration's own value once the demonstration has
removed it, nor on a fresh value that names nothing. When the site has a healthy skill
that makes a thing of that kind (its command starts with a making verb and types the
thing's name), the replay first runs that skill with a fresh name, then the skill on that
name: the state the command asks for, made on purpose, not the demonstration's left-overs.

The kind of a parameter is read from its command template: the words just before it, since
the previous value or the verb, less articles and naming words ("drop the database
{name}", "create a database named {name}": both "database").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from browser_agent.skills.fresh import example_arguments, fresh_arguments, typed_only
from browser_agent.skills.loader import SkillFunction, SkillLoadError
from browser_agent.skills.stored import load_skill, made_code
from browser_agent.store.skill_use import templates_of

if TYPE_CHECKING:
    from pathlib import Path

    from browser_agent.store.rows import SkillRow

# A command that makes something starts with one of these.
MAKING = frozenset({"create", "add", "make", "new", "insert", "register", "write", "post"})
# Words around a value that say nothing of its kind.
_FILLER = frozenset(
    {"a", "an", "the", "named", "called", "titled", "with", "name", "title", "of", "to"}
)
_TOKEN = re.compile(r"\{(\w+)\}|([^\W\d_][\w-]*)")


@dataclass(frozen=True)
class Maker:
    """A skill that makes the thing ``param`` of the skill to replay names, by typing its
    own parameter ``typed``: its loaded ``function`` and the ``arguments`` it runs with
    (fresh ones for what it only types, see skills.fresh)."""

    skill: SkillRow
    typed: str
    param: str
    function: SkillFunction
    arguments: dict[str, Any]


def kinds(template: str) -> dict[str, set[str]]:
    """Each parameter of ``template`` with the words naming its kind (see the module)."""
    found: dict[str, set[str]] = {}
    words: list[str] = []
    for index, match in enumerate(_TOKEN.finditer(template.lower())):
        param, word = match.groups()
        if param:
            found[param] = set(words) - _FILLER
            words = []
        elif index:  # the first word is the verb
            words.append(word)
    return found


def _verb(template: str) -> str:
    match = _TOKEN.match(template.strip().lower())
    return match.group(2) or "" if match else ""


def makers(
    skill: SkillRow,
    candidates: Iterable[SkillRow],
    workspace: Path | None,
    start_url: str | None = None,
) -> list[Maker]:
    """The healthy skills of ``skill``'s site that make a thing one of its parameters names
    (one it does not only type), with the parameter each would fill, ready to run from
    ``start_url`` (their own when None); a maker that cannot be loaded is left out."""
    named = _named_kinds(skill, workspace)
    if not named:
        return []
    found = []
    for other in candidates:
        if other.name == skill.name or other.status != "healthy" or not other.complete:
            continue
        if urlsplit(other.start_url).netloc != urlsplit(skill.start_url).netloc:
            continue
        making = _making(other, named, workspace)
        if making is None:
            continue
        try:
            function = load_skill(other, workspace)
        except SkillLoadError:  # a refused skill is never run
            continue
        given = example_arguments(other, start_url)
        arguments = fresh_arguments(made_code(other, workspace), given)
        found.append(Maker(other, *making, function, arguments))
    # the one with fewest parameters first: it asks least of the values it is given
    return sorted(found, key=lambda maker: len(json.loads(maker.skill.example_args or "{}")))


def _named_kinds(skill: SkillRow, workspace: Path | None) -> dict[str, set[str]]:
    """The kinds of the parameters ``skill`` uses to name something on the page."""
    typed = typed_only(made_code(skill, workspace))
    named: dict[str, set[str]] = {}
    for template in templates_of(skill):
        for param, words in kinds(template).items():
            if param not in typed and words:
                named.setdefault(param, set()).update(words)
    return named


def _making(
    other: SkillRow, named: dict[str, set[str]], workspace: Path | None
) -> tuple[str, str] | None:
    """The parameter ``other`` types to make a thing of one of the ``named`` kinds, and
    the named parameter it is for; None when it makes none of them."""
    typed = typed_only(made_code(other, workspace))
    for template in templates_of(other):
        if _verb(template) not in MAKING:
            continue
        for typed_param, words in kinds(template).items():
            if typed_param not in typed:
                continue
            for param, wanted in named.items():
                if words & wanted:
                    return typed_param, param
    return None
