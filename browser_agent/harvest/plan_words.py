"""The command's words, as the reading of a run's log into a skill looks for them: where
the command says a value, its quoted values, the words naming a value, ordinals, and the
gaps between clauses and between the items of a list."""

from __future__ import annotations

import re

from browser_agent.plans.plan import snake
from browser_agent.secrets import PLACEHOLDER

# Where a clause of the command starts: a name said there is its verb ("Close the dialog").
CLAUSE_START = re.compile(r"(?:^|[.;:!?]\s+|\bthen\s+)$", re.IGNORECASE)
LIST_GAP = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+|;\s*)$", re.IGNORECASE)
PATH_GAP = re.compile(r"^\s*>\s*$")
LETTER_CASE = re.compile(r"\b(upper|lower)(?=[\s-]*case\b)", re.IGNORECASE)
_ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth",
)  # fmt: skip
ORDINAL = re.compile(
    r"\b(?:(?P<n>\d+)(?:st|nd|rd|th)|(?P<w>" + "|".join(_ORDINAL_WORDS) + r"))\b", re.I
)
# Where a command's next clause starts: "search X and sort by Y", "open X, then Y".
CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+)", re.I
)
# What may stand between a kind of thing and its value: `the category "Trees"`,
# "the page named X".
NAMING_GAP = re.compile(r"[\s\"'\u201c:]*(?:(?:named|called|titled|labell?ed)[\s\"'\u201c:]*)?")


def where_said(value: str, command: str, whole: bool = False) -> re.Match[str] | None:
    """Where the command says ``value`` (case and punctuation aside), if it does; with
    ``whole``, only as a quoted or stand-alone token (for one-letter values such as "x").
    A secret's placeholder is said only as itself, braces included."""
    if PLACEHOLDER.fullmatch(value):
        return re.search(re.escape(value), command, re.IGNORECASE)
    words = re.findall(r"\w+", value)
    if not words:
        marks = value.strip()
        return (
            re.search(rf"(?<=[\"'\s]){re.escape(marks)}(?=[\"'\s.,]|$)", command) if marks else None
        )
    pattern = r"(?<!\w)" + r"\W*".join(re.escape(w) for w in words) + r"(?!\w)"
    trailing = re.search(r"[^\w\s]+$", value.strip())
    if trailing:  # "Where is my order?" keeps its question mark when the command has it
        pattern += f"(?:{re.escape(trailing.group())})?"
    leading = re.match(r"[#@$]+", value.strip())
    if leading:  # "#2" keeps its hash when the command has it ("ticket #2")
        pattern = f"(?:{re.escape(leading.group())})?" + pattern
    if whole:
        pattern = r"(?<=[\"'\u201c])" + pattern + r"(?=[\"'\u201d])"
    for match in re.finditer(pattern, command, re.IGNORECASE):
        before, after = command[: match.start()][-1:], command[match.end() :][:1]
        bounded = (not before or before in _OPENS) and (not after or after in _CLOSES)
        if bounded and not _half_quoted(command, match):
            return match
    return None


def _half_quoted(command: str, match: re.Match[str]) -> bool:
    """The match takes part of a quoted value and words outside it ('milestone "Sprint 4'
    of 'remove the milestone "Sprint 4"'): two values of the command, not one."""
    start, end = match.span()
    touched = [
        q.span()
        for q in _QUOTED_SPANS.finditer(command)
        if q.start() < end < q.end() or q.start() < start < q.end()
    ]
    return any(not (a <= start and end <= b) for a, b in touched)


def within_quotes(command: str, match: re.Match[str]) -> bool:
    """Whether ``match`` lies inside one quoted value of the command."""
    start, end = match.span()
    return any(q.start() < start and end < q.end() for q in _QUOTED_SPANS.finditer(command))


def quoted_values(command: str) -> list[str]:
    """The command's quoted values, without their quotes."""
    return [span[1:-1] for span in _QUOTED_SPANS.findall(command)]


_QUOTED_SPANS = re.compile(r"\"[^\"]*\"|“[^”]*”")
# Words that stand between a noun and its value ("the page named X", "ticket #9").
_FILLER = frozenset(
    {"named", "called", "titled", "labelled", "labeled", "with", "the", "a", "an", "to", "of",
     "for", "in", "on", "at", "by", "and", "number", "no", "id", "as", "is"}
)  # fmt: skip


def near_words(command: str, start: int, end: int | None = None) -> str:
    """A name from the command's words around a value: the kind after it when an article
    opens it ("the sightings table", "the field database": ``table``, ``database``), else
    the words just before it, back to the value before ("ticket #9" gives ``ticket``, "a
    wiki page named X" ``wiki_page``, "with count 9 to the X" nothing); empty when none."""
    if end is not None and re.search(r"\b(?:the|an?)\s+[\"'\u201c\u2018]?$", command[:start], re.I):
        after = re.match(r"[\"'\u201d\u2019]?\s+([A-Za-z]+)\b(?:\s+(\w+)|\s*[,.;:!?]?\s*$)",
                         command[end:])  # fmt: skip
        if (
            after
            and after[1].lower() not in _FILLER
            and (after[2] is None or after[2].lower() in _FILLER)
        ):
            return snake(after[1])
    words = re.findall(r"[A-Za-z]+|\S*\d\S*", command[:start])
    while words and words[-1].lower() in _FILLER:
        words.pop()
    taken: list[str] = []
    # The command's first word is its verb ("assign ticket #9"), not a name; a number is
    # the value before, which the words before it name.
    while len(words) > 1 and words[-1].isalpha() and words[-1].lower() not in _FILLER:
        if len(taken) == 2:
            break
        taken.insert(0, words.pop())
    return snake(" ".join(taken)) if taken else ""


# What may stand before and after a value in a command: a value is a whole token, never the
# "24" inside "12/24/2016" (a menu path "File>Save" is two tokens).
_OPENS = frozenset(" \t\n\"'(\u201c\u2018>,;:#")
_CLOSES = frozenset(" \t\n\"')\u201d\u2019>,;:.!?")


def plain(text: str) -> str:
    """A text as compared with what pages show: spaces collapsed, case folded."""
    return " ".join(text.split()).casefold()


# Values of a shape a command says exactly: an email address, a web address, a number of
# three digits or more (a phone, an order number).
_EXACT_SHAPES = {
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"https?://\S+"),
    "number": re.compile(r"\+?\d[\d\s-]{2,}\d"),
}


def contradicted(typed: str, command: str) -> str | None:
    """The command's value that typed text of the same exact shape stands in place of
    (grace@example.com typed where the command says ada@example.com: corrected during
    the run); None when the command says the typed text or no value of its shape."""
    text = typed.strip()
    if not text or where_said(text, command) is not None:
        return None
    for pattern in _EXACT_SHAPES.values():
        if pattern.fullmatch(text):
            said = [v for v in pattern.findall(command) if v.strip(".,") != text]
            return said[0].strip(".,") if said else None
    return None


def ordinal_value(match: re.Match[str]) -> int:
    """The number an ordinal of the command says ("3rd" or "third": 3)."""
    if match["n"]:
        return int(match["n"])
    return _ORDINAL_WORDS.index(match["w"].lower()) + 1
