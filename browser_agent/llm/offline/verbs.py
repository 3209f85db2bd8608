"""Reading everyday application work, whatever the site: create / add / new / publish X
(titled, named, called…) with fields, edit / change / update X to add or set Y, add Y to X,
remove / delete / archive X, and "its history" after a clause that named X. The thing
named and its values are read by :func:`browser_agent.words.asks.read_clause`, as the end-state
check reads them; this module adds which field each value goes to and the steps a person
takes (see :mod:`browser_agent.llm.offline.form_tasks`)."""

from __future__ import annotations

import re
from dataclasses import replace

from browser_agent.llm.offline.filters import filter_tasks
from browser_agent.llm.offline.form_tasks import (
    ASSIGN_KEYS,
    TEXT_KEYS,
    TITLE_KEYS,
    Confirm,
    Control,
    Save,
    Setting,
    Write,
)
from browser_agent.llm.offline.tasks import VIEW_LINKS, Dismiss, Press, Reach, Task
from browser_agent.llm.offline.words import QUOTES, items, unquote
from browser_agent.words.asks import quoted, read_clause

#: The verbs that make a thing (``open`` and ``start`` only before "a new").
_CREATE_WORDS = frozenset({"create", "add", "new", "publish", "post", "make", "open", "start"})
_NAMING = re.compile(r"\b(?:titled|named|called|entitled|with\s+the\s+(?:title|name))\b", re.I)
_ARTICLES = re.compile(r"^(?:(?:the|a|an|my|this|that|its|new)\s+)+", re.I)
_ITS_VIEW = re.compile(
    r"(?:open|view|show(?:\s+me)?|see|display|go\s+to)\s+(?:its|their)\s+"
    r"(?P<view>history|revisions|changes|settings|source|log|edit\s+page)",
    re.I,
)
_PRONOUNS = frozenset({"it", "this", "that", "them"})


def read_verb(clause: str) -> list[Task] | None:
    """The tasks of a create, edit or remove clause; None when the clause is none of them
    (it is then read by the other patterns: "add X to the cart" is not made here)."""
    text = re.sub(r"^(?:please\s+|now\s+|also\s+)+", "", clause.strip(), flags=re.I)
    first = text.split(maxsplit=1)[0].lower() if text else ""
    if first == "new":  # "new issue titled X"
        text = f"create a {text}"
    if re.fullmatch(r"confirm(?:\s+(?:it|the\s+(?:deletion|removal|dialog)))?", text, re.I):
        return [Confirm()]  # "... and confirm": the removal's confirmation (see settle)
    its = _ITS_VIEW.fullmatch(text)
    if its:  # "… and view its history": that view of the thing named before
        view = "edit" if its["view"].lower().startswith("edit") else its["view"].lower()
        return [Reach("it"), Press(VIEW_LINKS.get(view, (view,)))]
    ask = read_clause(text)
    if ask.kind == "filter" and ask.target and ask.values:
        return filter_tasks(ask)
    if ask.kind == "create" and first in _CREATE_WORDS:
        return _create(text, ask.target)
    if first in _CREATE_WORDS - {"open", "start"} and _NAMING.search(_masked(text)):
        named = read_clause(f"open {text.split(maxsplit=1)[1]}")  # "… called X on Y"
        return _create(text, named.target) if named.kind == "open" else None
    if first in ("assign", "reassign"):
        return _assign(text)
    if ask.kind == "edit" and ask.target:
        return _edit(text, ask.target)
    if first in ("set", "change", "update") and not ask.target:
        return _setting(text)
    if ask.kind == "remove" or (ask.kind == "values" and _is_removal(first)):
        return _remove(text, first)
    return _add_to(text)


def settle(tasks: list[Task]) -> list[Task]:
    """The tasks of a whole command, once each clause is read: "delete X and confirm" is
    one confirmation, and a control or form named "it" is the thing last opened."""
    settled: list[Task] = []
    subject = ""
    for task in tasks:
        if isinstance(task, Reach):
            subject = task.phrase
        if isinstance(task, Control | Save | Confirm) and task.target.lower() in _PRONOUNS:
            task = replace(task, target=subject)
        if settled and isinstance(settled[-1], Confirm) and _confirms(task, settled[-1]):
            continue
        settled.append(task)
    return settled


def _masked(text: str) -> str:
    """``text`` with its quoted parts blanked out (their places kept)."""
    return QUOTES.sub(lambda m: "\0" * len(m.group(0)), text)


def _confirms(task: Task, before: Confirm) -> bool:
    """A clause that only confirms ("and confirm", "then accept the dialog")."""
    if isinstance(task, Confirm):
        return not task.target and not task.noun or task == before
    if isinstance(task, Dismiss):
        return task.choice in ("accept", "allow", "")
    return isinstance(task, Press) and task.phrases == ("submit", "send", "save")


def _is_removal(word: str) -> bool:
    return word in ("remove", "delete", "drop", "erase", "trash", "discard", "archive")


# ---- create ----------------------------------------------------------------------------


def _create(text: str, target: str) -> list[Task] | None:
    """'create a page titled "X" with the text "Y" and priority High'."""
    body = text.split(maxsplit=1)[1] if " " in text else ""
    if text.split()[0].lower() in ("open", "start"):
        body = re.sub(r"^a\s+new\s+", "a ", body, flags=re.I)
    noun = _noun(body)
    if noun.endswith(f" {target.lower()}"):  # "a user frog12": the name is no word of the noun
        noun = noun[: -len(target) - 1]
    after = _after(body, target)
    writes = [_write(item, noun) for item in _with_items(after)]
    if any(write is None for write in writes):
        return None
    title = Write("title", _name_keys(noun), target, noun=noun)
    fields = [w for w in writes if w is not None]
    word = "create" if text.split()[0].lower() in ("open", "start") else text.split()[0].lower()
    control = Control("create", noun, target, word)
    return [control, title, *fields, Save("create", noun, target)]


def _name_keys(noun: str) -> tuple[str, ...]:
    """The labels a new thing's name goes by: the thing's own name field first, by each word
    of its kind, the last first ("Account name", then "User name" and "Username" for a
    user account), then a title's ("Title", "Subject", "Name"…)."""
    own = [key for word in reversed(noun.split()) for key in (f"{word} name", f"{word}name")]
    return (*own, *TITLE_KEYS)


def _noun(text: str) -> str:
    """The kind of thing a clause names before its name: "a new issue titled X" -> issue."""
    masked = _masked(text)
    end = min(
        (i for i in (masked.find("\0"), _search_start(_NAMING, masked)) if i >= 0),
        default=len(masked),
    )
    head = re.split(r"\s+with\s+", masked[:end], maxsplit=1)[0]
    head = re.sub(r"\s*#\d+\b.*$", "", head)  # "ticket #14": the number is its name
    head = _ARTICLES.sub("", head.strip()).strip(" ,")
    return head.lower() if head and len(head.split()) <= 3 else ""


def _search_start(pattern: re.Pattern[str], text: str) -> int:
    found = pattern.search(text)
    return found.start() if found else -1


def _after(text: str, target: str) -> str:
    """What the clause says after the thing's name (its fields, "with …")."""
    for said in (f'"{target}"', f"\u201c{target}\u201d", f"'{target}'", target):
        at = text.find(said)
        if at >= 0:
            return text[at + len(said) :].strip(" ,")
    return ""


def _with_items(text: str) -> list[str]:
    """The "label value" items of 'with the text "Y" and priority High'."""
    text = re.sub(r"^(?:with|and|having)\s+", "", text.strip(), flags=re.I)
    found = []
    for item in items(text):
        item = re.sub(r"^(?:with|having|and)\s+", "", item, flags=re.I).strip()
        if item:
            found.append(item)
    return found


def _write(item: str, noun: str, append: bool = False, label: str = "") -> Write | None:
    """A field and its value: 'the text "Y"', 'priority High', '"Y"' (the text)."""
    item = _ARTICLES.sub("", item.strip())
    values = quoted(item)
    if values:
        opening = QUOTES.search(item)
        named = item[: opening.start() if opening else 0].strip()
        named = re.sub(r"\s*(?:of|as|is|=|:)$", "", named, flags=re.I).strip()
        value = values[0]
    elif label:
        named, value = "", unquote(item)
    else:
        parts = item.split(maxsplit=1)
        if len(parts) < 2:
            return None
        named, value = parts[0], unquote(parts[1])
    named = _ARTICLES.sub("", named or label or "text").lower()
    return Write(named, _keys(named), value, append, noun)


def _keys(label: str) -> tuple[str, ...]:
    """The labels a field may go by on a page, the command's own first."""
    words = set(label.split())
    if words & set(TITLE_KEYS):
        return (label, *(k for k in TITLE_KEYS if k != label))
    if words & set(TEXT_KEYS):
        return (label, *(k for k in TEXT_KEYS if k != label))
    return (label,)


# ---- edit ------------------------------------------------------------------------------


def _edit(text: str, target: str) -> list[Task] | None:
    """'edit the page "X" to add the text "Y"', 'change X to say "Y"', 'rename X to "Z"'."""
    masked = _masked(text)
    split = re.match(r"^(?P<verb>\w+)\s+(?P<x>.+?)\s+to\s+(?P<y>.+)$", masked)
    if not split:
        return None
    verb, noun = split["verb"].lower(), _noun(text[split.start("x") : split.end("x")])
    said = text[split.start("y") :].strip()
    if verb == "rename":
        writes = [Write("title", TITLE_KEYS, unquote(said), noun=noun)]
    else:
        writes = _changes(said, noun)
    if not writes:
        return None
    return _changing(target, noun, writes)


def _changing(target: str, noun: str, writes: list[Write]) -> list[Task]:
    """Reach the thing, use its edit control, write, save."""
    control = Control("edit", noun, target)
    return [Reach(target, kind=noun), control, *writes, Save("edit", noun, target)]


def _changes(said: str, noun: str) -> list[Write]:
    """What an edit does to the fields: add to them, set them, or say a new text."""
    adding = re.match(r"^(?:add|append|include)\s+(?P<rest>.+)$", said, re.I)
    if adding:
        found = [_write(item, noun, append=True) for item in _with_items(adding["rest"])]
        if len(found) == 1 and found[0] is None:
            found = [_write(adding["rest"], noun, append=True, label="text")]
        return [w for w in found if w is not None]
    setting = re.match(
        r"^(?:set|change|make)\s+(?:the\s+|its\s+)?(?P<label>[\w\s-]+?)\s+to\s+(?P<v>.+)$",
        said,
        re.I,
    )
    if setting:
        label = setting["label"].lower()
        return [Write(label, _keys(label), unquote(setting["v"]), noun=noun)]
    saying = re.match(r"^(?:say|read|contain|hold|be)\s+(?P<v>.+)$", said, re.I)
    value = unquote(saying["v"] if saying else said)
    return [Write("text", _keys("text"), value, noun=noun)] if value else []


_SETTING = re.compile(
    r"^\w+\s+(?:the\s+|its\s+|my\s+)?(?P<label>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
    r"(?:\s+(?:of|for)\s+(?P<x>.+?))?\s+to\s+(?P<v>.+)$",
    re.I,
)


def _setting(text: str) -> list[Task] | None:
    """'change the site title to "X"', 'set the comment of the birds table to "X"': a field
    of the site's (or of the thing named after "of") given a value, on the page that holds
    it, then saved."""
    split = _SETTING.match(_masked(text))
    value = unquote(text[split.start("v") :]) if split else ""
    if not split or not value:
        return None
    label = split["label"].lower()
    place = text[split.start("x") : split.end("x")] if split["x"] else ""
    reach: list[Task] = [Reach(unquote(_ARTICLES.sub("", place.strip(" "))))] if place else []
    keys = (label,)  # a setting goes by its own name ("Site Title" is no post's "Title")
    return [*reach, Setting(label, keys), Write(label, keys, value), Save("edit")]


def _assign(text: str) -> list[Task] | None:
    """'assign ticket #10 to alice', 'assign the issue "Typo" to "bob"': an edit that sets
    who the thing is assigned to."""
    masked = _masked(text)
    split = re.match(r"^\w+\s+(?P<x>.+?)\s+to\s+(?P<u>.+)$", masked, re.I)
    if not split:
        return None
    place, user = text[split.start("x") : split.end("x")], unquote(text[split.start("u") :])
    named = read_clause(f"open {place}")
    if named.kind != "open" or not user.strip(" ."):
        return None
    noun = _noun(place)
    write = Write("assignee", ASSIGN_KEYS, user.strip(" ."), noun=noun)
    return _changing(named.target, noun, [write])


def _add_to(text: str) -> list[Task] | None:
    """'add the text "Y" to the page "X"': an edit that adds, when X is named plainly."""
    masked = _masked(text)
    split = re.match(r"^(?:add|append)\s+(?P<y>.+?)\s+to\s+(?P<x>.+)$", masked, re.I)
    if not split:
        return None
    said, place = text[split.start("y") : split.end("y")], text[split.start("x") :]
    named = read_clause(f"open {place}")
    if named.kind != "open" or not quoted(said):
        return None
    noun = _noun(place)
    write = _write(said, noun, append=True)
    return _changing(named.target, noun, [write]) if write else None


# ---- remove ----------------------------------------------------------------------------


def _remove(text: str, word: str) -> list[Task] | None:
    """'delete the page "X"', 'archive issue Login broken', 'delete it', 'delete the draft'."""
    rest = text.split(maxsplit=1)[1].strip(" .") if " " in text else ""
    rest = re.sub(r"\s+(?:and\s+)?confirm(?:ed)?$|\s*\(confirmed\)$", "", rest, flags=re.I)
    if quoted(rest) or _NAMING.search(rest):
        target = read_clause(f"remove {rest}").target
        noun = _noun(rest)
    else:
        noun, target = _bare(rest)
    if not target and not noun:
        return None
    reach: list[Task] = [Reach(target, kind=noun)] if target else []
    return [*reach, Control("remove", noun, target, word), Confirm(noun, target)]


def _bare(text: str) -> tuple[str, str]:
    """(noun, name) of a thing named without quotes: "the page Gamma" -> (page, Gamma),
    "the draft" -> (draft, ""), "Gamma" -> ("", Gamma), "it" -> ("", it)."""
    if text.lower() in _PRONOUNS:
        return "", text
    had_article = bool(_ARTICLES.match(text))
    words = _ARTICLES.sub("", text).split()
    if not words:
        return "", ""
    if len(words) == 1:
        return (words[0].lower(), "") if had_article else ("", words[0])
    return words[0].lower(), " ".join(words[1:])
