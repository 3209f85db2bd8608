"""What a command asks for, read as end states a page can be checked against.

A command is cut into clauses ("…, then …", "… and view …"), and each clause is read by
the first kind that fits it:

- *open / view / show X* (X quoted, or after titled / named / called): X's own page;
- *the history / settings / edit page … of X* (or *X's history*): that view of X;
- *create / add / publish … X (with Y)*: X exists, holding every value given;
- *edit / change / update / rename X to (add) Y*: X's page holds Y (a setting, *set my
  email address to Y*, names no thing: the page holds Y);
- *remove / delete / drop … X*: X is no longer listed;
- *log in as U*: the site shows U signed in;
- *sort … by C (highest first)*: a column headed C in that order;
- *show the X where C is V* (or *with a C greater than N*): a column headed C holding
  only such values.

Anything else (a search, a sort, a click, a form filled) is read as *values*: the page
shows what the command gave. The thing named is X itself, never the words around it:
"the page titled "Release notes"" names ``Release notes``. The checks themselves are in
:mod:`browser_agent.skills.end_state`; the embedded planner reads the same targets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("open", "view", "create", "edit", "remove", "login", "sort", "filter", "values")

QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'([^']+)'(?!\w)")
_NAMING = r"(?:titled|named|called|entitled|with\s+the\s+(?:title|name))"
_ARTICLE = r"(?:the|a|an|my|this|that|new|a\s+new)"
_OPEN = r"(?:open|view|show(?:\s+me)?|see|display|visit|read|go\s+to|take\s+me\s+to)"
_VIEWS = (
    r"(?P<view>history|revision\s+history|revisions|changes|change\s+log|settings|"
    r"edit\s+page|editor|source|permissions|activity|log)"
)
_CREATE = r"(?:create|add|make|write|post|publish|register|insert|(?:open|start)(?=\s+a\s+new\b))"
_EDIT = r"(?:edit|change|update|modify|rename|set)"
_REMOVE = r"(?:remove|delete|drop|erase|trash|discard|archive|uninstall|unregister)"
# Where a clause ends and another verb starts: ", then view …", " and open …".
_VERBS = (
    r"(?:open|view|show|see|display|visit|go|create|add|make|write|post|publish|register|"
    r"insert|edit|change|update|modify|rename|set|remove|delete|drop|erase|trash|archive|"
    r"log|sign|search|sort|filter|click|type|enter|fill|select|choose|assign|mark|save|"
    r"submit|press|read|find|return|tell|check|confirm|accept|dismiss|cancel|approve)"
)
_SPLIT = re.compile(
    rf"\s*(?:,\s*(?:and\s+|then\s+|and\s+then\s+)?|\s+and\s+then\s+|\s+then\s+|\s+and\s+)(?={_VERBS}\b)",
    re.I,
)


@dataclass(frozen=True)
class Ask:
    """One clause's end state: its ``kind`` (see KINDS), the thing it names (``target``),
    the view of it asked for (``view``: "history", "settings"…) and the other values the
    clause gives (``values``), each as the command says it."""

    kind: str
    target: str = ""
    view: str = ""
    values: tuple[str, ...] = ()
    clause: str = ""


def asks(command: str) -> list[Ask]:
    """The end states ``command`` asks for, one per clause, in order ("its history" names
    the thing the clause before named)."""
    read: list[Ask] = []
    for clause in clauses(command):
        named = next((ask.target for ask in reversed(read) if ask.target), "")
        said = clause
        if named:
            said = re.sub(r"\bits\b", f'"{named}"\'s', said, count=1, flags=re.I)
            said = re.sub(r"\bit\b", f'"{named}"', said, count=1, flags=re.I)
        ask = read_clause(said)
        read.append(Ask(ask.kind, ask.target, ask.view, ask.values, clause))
    return read


def clauses(command: str) -> list[str]:
    """``command`` cut at connectors before a verb, never inside quotes."""
    masked = QUOTED.sub(lambda m: "\0" * len(m.group(0)), command)
    parts, start = [], 0
    for cut in _SPLIT.finditer(masked):
        parts.append(command[start : cut.start()])
        start = cut.end()
    parts.append(command[start:])
    return [part.strip(" .!") for part in parts if part.strip(" .!")]


def quoted(text: str) -> list[str]:
    """The quoted parts of ``text``, without their quotes, in order."""
    return [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]


def read_clause(clause: str) -> Ask:
    """The end state one clause asks for (kind "values" when no other kind fits)."""
    text = re.sub(r"^(?:please\s+|now\s+|also\s+)+", "", clause.strip(), flags=re.I)
    for reader in (_login, _sort, _filter, _view, _open, _remove, _edit, _assign, _create):
        ask = reader(text)
        if ask is not None:
            return Ask(ask.kind, ask.target, ask.view, ask.values, clause)
    return Ask("values", values=tuple(quoted(text)), clause=clause)


def _named(text: str) -> str | None:
    """The thing ``text`` names: a quoted value, what follows titled / named / called (up
    to "with" or the end), or the number a noun is given ("ticket #14"); None when it
    names nothing that plainly."""
    masked = QUOTED.sub(lambda m: "\0" * len(m.group(0)), text)
    naming = re.search(rf"\b{_NAMING}\s+", masked, re.I)
    rest = text[naming.end() :] if naming else text
    found = quoted(rest)
    if found and rest.lstrip().startswith(('"', "“", "‘", "'")):
        return found[0]
    if found and not naming:  # "the page "X"": a quoted value after a noun or two
        head = masked[: masked.find("\0")]
        if re.fullmatch(rf"\s*(?:{_ARTICLE}\s+)?(?:[\w-]+\s+){{0,3}}", head, re.I):
            return found[0]
        return None
    if naming:
        value = re.split(r"\s+with\s+|\s*,\s*", rest, maxsplit=1)[0].strip(" .")
        return value or None
    numbered = _NUMBERED.fullmatch(text.strip(" ."))
    return numbered["n"] if numbered else None


# "ticket #14", "the issue #7": a thing a site numbers, named by its number.
_NUMBERED = re.compile(rf"(?:{_ARTICLE}\s+)?(?:[\w-]+\s+){{1,2}}(?P<n>#\d+)", re.I)


def _login(text: str) -> Ask | None:
    m = re.match(
        r"(?:log|sign)\s*(?:in|on)(?:\s+(?:to|into)\s+\S+?)?\s+as\s+(?P<x>.+?)"
        r"(?:\s+(?:with|using|and)\b.*)?$",
        text,
        re.I,
    )
    if not m:
        return None
    user = quoted(m["x"])
    return Ask("login", user[0] if user else m["x"].strip(" ."))


_DIRECTIONS = {
    "ascending": (
        r"ascending|low(?:est)?\s+(?:to\s+high(?:est)?|first)|oldest\s+first|a\s+to\s+z|"
        r"smallest\s+first"
    ),
    "descending": (
        r"descending|high(?:est)?\s+(?:to\s+low(?:est)?|first)|newest\s+first|z\s+to\s+a|"
        r"largest\s+first|most\s+first"
    ),
}


def _sort(text: str) -> Ask | None:
    """*sort (the X) by C (, highest first)*: the column C, and the order when said (as
    the ``view``: ascending or descending)."""
    m = re.match(r"(?:sort|order)(?:\s+[\w\s]+?)?\s+by\s+(?P<c>.+)$", text, re.I)
    if not m:
        return None
    column, order = m["c"].strip(" ."), ""
    for name, words in _DIRECTIONS.items():
        said = re.search(rf",?\s*(?:in\s+)?(?:{words})(?:\s+order)?$", column, re.I)
        if said:
            column, order = column[: said.start()].strip(" ,"), name
    quoted_column = quoted(column)
    return Ask("sort", quoted_column[0] if quoted_column else column, order)


_COMPARE = {
    "greater": r"greater\s+than|more\s+than|above|over|at\s+least",
    "less": r"less\s+than|fewer\s+than|below|under|at\s+most",
    "equal": r"is|=|equals|of",
}


def _filter(text: str) -> Ask | None:
    """*show the X where C is V* / *with a C greater than N*: the column C (``target``),
    how its cells compare (``view``: equal, greater or less) and the value V."""
    m = re.match(
        rf"(?:{_OPEN}|list|find|filter)\s+.+?\s+(?:where|whose|with\s+(?:a|an|the)?)\s*"
        rf"(?P<c>[\w\s-]+?)\s+(?P<op>{'|'.join(_COMPARE.values())})\s+(?P<v>.+)$",
        text,
        re.I,
    )
    if not m:
        return None
    compare = next(k for k, words in _COMPARE.items() if re.fullmatch(words, m["op"], re.I))
    value = quoted(m["v"])
    return Ask("filter", m["c"].strip(), compare, (value[0] if value else m["v"].strip(" ."),))


def _view(text: str) -> Ask | None:
    m = re.match(rf"{_OPEN}\s+(?:the\s+)?{_VIEWS}\s+(?:of|for)\s+(?P<x>.+)$", text, re.I)
    if not m:
        m = re.match(rf"{_OPEN}\s+(?P<x>.+?)(?:'s|’s)\s+{_VIEWS}$", text, re.I)
    if not m:
        return None
    target = _named(m["x"]) or _bare(m["x"])
    view = m["view"].lower().split()[-1] if m["view"] else ""
    return Ask("view", target, "edit" if view in ("page", "editor") else view) if target else None


def _bare(text: str) -> str:
    """A thing named without quotes: the words after an article and a noun such as page."""
    text = re.sub(
        rf"^(?:{_ARTICLE}\s+)?(?:(?:wiki\s+)?page|article|post|issue|ticket)\s+",
        "",
        text.strip(),
        flags=re.I,
    )
    return text.strip(" .")


def _open(text: str) -> Ask | None:
    m = re.match(rf"{_OPEN}\s+(?P<x>.+)$", text, re.I)
    if not m or re.match(r"https?://|www\.|(?:a\s+)?new\b", m["x"], re.I):
        return None
    target = _named(m["x"])
    return Ask("open", target) if target else None


def _remove(text: str) -> Ask | None:
    m = re.match(rf"{_REMOVE}\s+(?P<x>.+)$", text, re.I)
    if not m:
        return None
    target = _named(m["x"]) or _bare_noun(m["x"])
    return Ask("remove", target) if target else None


def _bare_noun(text: str) -> str:
    """ "the database archive_1999" names ``archive_1999``: the last word, after a noun."""
    m = re.fullmatch(
        rf"(?:{_ARTICLE}\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?P<x>\S+)", text.strip(" ."), re.I
    )
    return m["x"] if m else ""


def _edit(text: str) -> Ask | None:
    """*edit X to add Y*, *change the site title to "Y"*, *set my email address to Y*: the
    thing X (none for a setting) holding the value Y, quoted or one word."""
    m = re.match(rf"{_EDIT}\s+(?P<x>.+?)\s+to\s+(?P<y>.+)$", text, re.I)
    if not m or not quoted(m["y"]) and not _named(m["x"]) and len(m["y"].split()) > 1:
        return None
    target = _named(m["x"]) or ""
    values = tuple(quoted(m["y"])) or (re.sub(r"^(?:add|say|read|include)\s+", "", m["y"]),)
    return Ask("edit", target, values=values)


def _assign(text: str) -> Ask | None:
    """*assign X to U*: an edit of X after which its page shows U."""
    m = re.match(r"(?:re)?assign\s+(?P<x>.+?)\s+to\s+(?P<u>.+)$", text, re.I)
    target = _named(m["x"]) if m else None
    if not m or not target:
        return None
    user = quoted(m["u"])
    return Ask("edit", target, values=(user[0] if user else m["u"].strip(" ."),))


def _create(text: str) -> Ask | None:
    m = re.match(rf"{_CREATE}\s+(?P<x>.+)$", text, re.I)
    if not m:
        return None
    masked = QUOTED.sub(lambda q: "\0" * len(q.group(0)), m["x"])
    head = re.split(r"\s+with\s+", masked, maxsplit=1)[0]
    if re.search(r"\s(?:to|into|in|on|for)\s", f" {head} "):  # "add X to the cart": not made
        return None
    target = _named(m["x"]) or _plain_name(head)
    if not target:
        return None
    values = tuple(value for value in quoted(m["x"]) if value != target)
    return Ask("create", target, values=values)


# A name given without quotes: one word that reads as a name, not as a word of the noun
# ("frog12", "Apollo", "ada@example.org", "web_team"); "a blue widget" names nothing.
_NAME_LIKE = re.compile(r"\S*(?:\d|[A-Z]|[_@.]\w)\S*")


def _plain_name(head: str) -> str:
    """ "a user frog12", "a project Apollo": the word after an article and a noun of one or
    two words, when it reads as a name ("" otherwise)."""
    m = re.fullmatch(
        rf"(?:{_ARTICLE}\s+)(?:[a-z][\w-]*\s+){{1,2}}(?P<x>\S+)", head.strip(" ."), re.I
    )
    return m["x"] if m and _NAME_LIKE.fullmatch(m["x"]) and "\0" not in m["x"] else ""
