"""Matching commands against skill command templates: tolerant of wording, not of meaning.

A template such as ``search for {search_term} and sort by {sort_by}`` is read as literal
words with parameters as gaps between them. A command matches when the template's literal
words appear in it in order, the first at its start and the last at its end, with some
text in every gap; that text is the parameter's value.

Tolerated (wording):

- case, and the spacing between words;
- quotes, straight or curly, single or double: in the template, in the command, or in
  neither (``open "Trail Blazer 2"`` fits ``open {link_name}``);
- punctuation between words (``in size 42, quantity 2`` fits ``in size {s} quantity {q}``),
  and a trailing period or exclamation mark;
- the filler words of ``FILLERS`` anywhere in the literal part (``add X to cart`` fits
  ``add {product} to the cart``), and the politeness words of ``EDGE_FILLERS`` at the very
  start or end of the command (``please open X now``).

Not tolerated (meaning):

- a literal word that differs (a typo in ``serch for ...`` is another command);
- a gap that holds another clause (see ``another_clause``): ``open {link_name}`` does not
  match ``open the cart and check out``.

Values keep their own text: only the whitespace around them, a pair of quotes around the
whole value, and separators or sentence punctuation at their edges (``,;:.!``; not ``?``)
are dropped. Fillers inside a value stay: ``add the X to the cart`` gives ``the X``.

Matching is linear in the command's length: the command is cut into tokens once, each
literal run of a template is anchored at its first occurrence after the previous one
(the last at the command's end), and each token is looked at a bounded number of times.
A template whose parameters are not separated by a literal word cannot be split
unambiguously, and one with no literal word would take any command: neither matches.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple

# Words that may be added or left out anywhere outside a value without changing a command.
FILLERS = frozenset({"please", "kindly", "just", "now", "the", "a", "an"})
# Fillers also dropped at the very start and end of a command, next to a value.
EDGE_FILLERS = frozenset({"please", "kindly", "now"})
# Words that start a new clause inside a gap wherever they stand.
CLAUSE_WORDS = frozenset({"then", "afterwards"})
# Words and marks that join a following verb's clause to the one before.
CONNECTORS = frozenset({"and", ",", "&", "plus"})
# Imperative verbs of web commands: after a connector they begin another clause.
ACTION_VERBS = frozenset(
    {
        "accept", "add", "answer", "apply", "ask", "book", "buy", "cancel", "change",
        "check", "checkout", "choose", "clear", "click", "close", "collapse", "compare",
        "complete", "confirm", "continue", "copy", "create", "decline", "decrease",
        "delete", "disable", "download", "edit", "empty", "enable", "enter", "expand",
        "fill", "filter", "find", "follow", "go", "hover", "increase", "leave", "log",
        "login", "logout", "look", "mark", "move", "navigate", "open", "order", "pay",
        "post", "press", "print", "proceed", "purchase", "put", "read", "register",
        "reject", "reload", "remove", "rename", "reply", "reset", "return", "save",
        "scroll", "search", "select", "send", "share", "show", "sign", "sort", "start",
        "submit", "subscribe", "switch", "tap", "tell", "toggle", "type", "uncheck",
        "update", "upload", "verify", "view", "visit", "wait", "write",
    }
)  # fmt: skip
# Marks dropped at the edges of a value; "?" stays (a question is part of a message).
EDGE_MARKS = frozenset(",;:.!")
SENTENCE_ENDS = frozenset(".!?")
DOUBLE_QUOTES = frozenset('"“”„«»')
SINGLE_QUOTES = frozenset("'‘’‚`")
QUOTES = DOUBLE_QUOTES | SINGLE_QUOTES

WORD_OR_MARK = re.compile(r"\w+(?:['’.\-]\w+)*|[^\w\s]")
PLACEHOLDER = re.compile(r"(\{\{|\}\}|\{\w+\})")


class Token(NamedTuple):
    """A word, a quote mark or another mark of a text, where it stands in the text."""

    kind: str  # "word", "quote" or "mark"
    norm: str  # the word casefolded (with ’ read as '), or the mark itself
    start: int
    end: int


def tokenise(text: str) -> list[Token]:
    """The words and marks of ``text`` in order (whitespace only separates them)."""
    tokens: list[Token] = []
    append = tokens.append
    for found in WORD_OR_MARK.finditer(text):
        piece = found.group()
        start, end = found.span()
        if piece[0].isalnum() or piece[0] == "_":
            norm = piece.casefold()
            append(Token("word", norm.replace("’", "'") if "’" in norm else norm, start, end))
        else:
            append(Token("quote" if piece in QUOTES else "mark", piece, start, end))
    return tokens


@dataclass
class Command:
    """A command cut into tokens once, with an index for finding literal words in it.

    ``content`` lists the token indices of the words that count for matching (fillers,
    quotes and marks left out); ``lo``/``hi`` bound the command without politeness words
    and trailing marks at its edges.
    """

    text: str
    tokens: list[Token]
    lo: int
    hi: int
    content: list[int]
    where: dict[str, list[int]]  # word -> its positions in ``content``, ascending
    words_before: list[int]  # words_before[i]: word tokens among tokens[:i]
    partner: dict[int, int]  # token index of a quote -> index of its partner quote
    quoted: list[bool]  # token inside a quoted stretch

    @classmethod
    def parse(cls, text: str) -> Command:
        tokens = tokenise(text)
        lo, hi = 0, len(tokens)
        while lo < hi and _edge_junk(tokens[lo], lead=True):
            lo += 1
        while hi > lo and _edge_junk(tokens[hi - 1], lead=False):
            hi -= 1
        content: list[int] = []
        where: dict[str, list[int]] = {}
        for index in range(lo, hi):
            token = tokens[index]
            if token.kind == "word" and token.norm not in FILLERS:
                where.setdefault(token.norm, []).append(len(content))
                content.append(index)
        words_before = list(accumulate((t.kind == "word" for t in tokens), initial=0))
        partner = _quote_pairs(text, tokens)
        quoted = [False] * len(tokens)
        for opening, closing in partner.items():
            if opening < closing:
                for index in range(opening + 1, closing):
                    quoted[index] = True
        return cls(text, tokens, lo, hi, content, where, words_before, partner, quoted)

    def words_between(self, start: int, end: int) -> int:
        """How many word tokens lie in tokens[start:end]."""
        return self.words_before[end] - self.words_before[start]

    def literal_at(self, position: int, words: tuple[str, ...]) -> bool:
        """Whether ``words`` are the content words from ``position`` on."""
        if position < 0 or position + len(words) > len(self.content):
            return False
        return all(
            self.tokens[self.content[position + i]].norm == word for i, word in enumerate(words)
        )

    def find_literal(self, words: tuple[str, ...], start: int, stop: int) -> Iterator[int]:
        """Content positions p with start <= p and p + len(words) <= stop where ``words``
        stand, in ascending order."""
        positions = self.where.get(words[0], [])
        for index in range(bisect_left(positions, start), len(positions)):
            position = positions[index]
            if position + len(words) > stop:
                return
            if self.literal_at(position, words):
                yield position


def _edge_junk(token: Token, *, lead: bool) -> bool:
    """A token that says nothing at a command's edge: politeness words, stray marks."""
    if token.kind == "word":
        return token.norm in EDGE_FILLERS
    if token.kind == "mark":
        return token.norm in EDGE_MARKS or (lead and token.norm in "-*")
    return False


def _quote_pairs(text: str, tokens: list[Token]) -> dict[int, int]:
    """Quote marks that open and close a quoted stretch, both ways. An opening quote
    stands after a space (or at the start) before a non-space; its partner is the next
    quote of the same family right after a non-space. Other quote marks (a possessive
    apostrophe after a word, a lone quote) pair with nothing."""
    pairs: dict[int, int] = {}
    opened: int | None = None
    for index, token in enumerate(tokens):
        if token.kind != "quote":
            continue
        before = text[token.start - 1] if token.start else " "
        after = text[token.end] if token.end < len(text) else " "
        if opened is None:
            if not (before.isalnum() or before == "_") and not after.isspace():
                opened = index
        elif _family(tokens[opened].norm) == _family(token.norm) and not before.isspace():
            pairs[opened], pairs[index] = index, opened
            opened = None
    return pairs


def _family(mark: str) -> str:
    return "double" if mark in DOUBLE_QUOTES else "single"


@dataclass(frozen=True)
class Template:
    """A command template as literal runs and the parameters between them.

    ``literals`` has one more run than ``params``: the words before the first parameter,
    between each pair, and after the last; each run holds the words that count (fillers,
    quotes and marks left out). ``around`` holds, per parameter, the filler words the
    template has right before and right after it: in a command they belong to the
    template, not to the value (``open the {x} page`` reads "open the deals page" as
    x = "deals"). ``usable`` is False when the template has no literal word at all (it
    would take any command), when two parameters have no literal word between them, or
    when a parameter name repeats.
    """

    text: str
    literals: tuple[tuple[str, ...], ...]
    params: tuple[str, ...]
    around: tuple[tuple[frozenset[str], frozenset[str]], ...]

    @property
    def usable(self) -> bool:
        return (
            self.literal_words > 0
            and all(self.literals[1:-1])
            and len(set(self.params)) == len(self.params)
        )

    @property
    def literal_words(self) -> int:
        """How many words of the template are matched literally (its specificity)."""
        return sum(len(run) for run in self.literals)

    @property
    def verb(self) -> str | None:
        """The template's first literal word when it starts with one."""
        return self.literals[0][0] if self.literals and self.literals[0] else None


@lru_cache(maxsize=4096)
def parse_template(template: str) -> Template:
    """Split a template into literal runs and ``{name}`` parameters (``{{``/``}}`` are
    literal braces, which like all marks do not count)."""
    runs: list[list[str]] = [[]]
    fillers: list[list[str]] = [[]]  # per run: its words, fillers included
    params: list[str] = []
    for piece in PLACEHOLDER.split(template):
        if re.fullmatch(r"\{\w+\}", piece):
            params.append(piece[1:-1])
            runs.append([])
            fillers.append([])
        elif piece not in ("{{", "}}"):
            tokens = [t for t in tokenise(piece) if t.kind != "quote"]
            runs[-1] += [t.norm for t in tokens if t.kind == "word" and t.norm not in FILLERS]
            fillers[-1] += [t.norm for t in tokens]  # marks too: "#{ticket}" takes "#9"
    around = tuple(
        (_trailing_fillers(fillers[i]), _trailing_fillers(fillers[i + 1][::-1]))
        for i in range(len(params))
    )
    return Template(template, tuple(map(tuple, runs)), tuple(params), around)


def _trailing_fillers(words: list[str]) -> frozenset[str]:
    """The filler words and marks at the end of ``words``."""
    found = set()
    for word in reversed(words):
        if word not in FILLERS and (word[0].isalnum() or word[0] == "_"):
            break
        found.add(word)
    return frozenset(found)


@dataclass(frozen=True)
class Gap:
    """The text a parameter took: its value and whether the whole value was quoted."""

    value: str
    quoted: bool


@dataclass(frozen=True)
class TemplateMatch:
    """A template that fits a command, with each parameter's value."""

    template: Template
    values: dict[str, Gap]

    @property
    def literal_words(self) -> int:
        return self.template.literal_words

    @property
    def captured_chars(self) -> int:
        """Characters taken by parameters: fewer means the template said more."""
        return sum(len(gap.value) for gap in self.values.values())


def match_template(
    command: Command, template: Template, verbs: frozenset[str] = ACTION_VERBS
) -> TemplateMatch | None:
    """The values of ``template``'s parameters in ``command``, or None when it does not
    fit (see the module's docstring; ``verbs`` begin another clause after a connector)."""
    if not template.usable:
        return None
    runs, size = template.literals, len(command.content)
    if not template.params:
        return (
            TemplateMatch(template, {})
            if len(runs[0]) == size and (command.literal_at(0, runs[0]))
            else None
        )
    head, tail = runs[0], runs[-1]
    suffix = size - len(tail)
    if (
        not command.literal_at(0, head)
        or suffix < len(head)
        or not command.literal_at(suffix, tail)
    ):
        return None
    position = len(head)
    gap_start = command.content[position - 1] + 1 if head else command.lo
    gaps: list[tuple[int, int]] = []
    for run in runs[1:-1]:
        placed = _place(command, run, position, suffix, gap_start)
        if placed is None:
            return None
        gaps.append((gap_start, command.content[placed]))
        position = placed + len(run)
        gap_start = command.content[position - 1] + 1
    gap_end = command.content[suffix] if tail else command.hi
    if command.words_between(gap_start, gap_end) == 0:
        return None
    gaps.append((gap_start, gap_end))
    values = {}
    for name, (start, end), around in zip(template.params, gaps, template.around, strict=True):
        gap = _gap(command, start, end, around, verbs)
        if gap is None:
            return None
        values[name] = gap
    return TemplateMatch(template, values)


def _place(
    command: Command, run: tuple[str, ...], start: int, stop: int, gap_start: int
) -> int | None:
    """The first content position from ``start`` where ``run`` stands, ends by ``stop``
    and leaves at least one word in the gap before it."""
    for position in command.find_literal(run, start, stop):
        if command.words_between(gap_start, command.content[position]) > 0:
            return position
    return None


def _gap(
    command: Command,
    start: int,
    end: int,
    around: tuple[frozenset[str], frozenset[str]],
    verbs: frozenset[str],
) -> Gap | None:
    """The value held by tokens[start:end], or None when it is empty or holds another
    clause. Marks at its edges go, and so do the fillers ``around`` it in the template."""
    tokens = command.tokens
    before, after = around
    while start < end and _trimmed(tokens[start], before):
        start += 1
    while end > start and _trimmed(tokens[end - 1], after):
        end -= 1
    if start >= end:
        return None
    if command.partner.get(start) == end - 1:  # one quoted stretch: taken as it is
        value = command.text[tokens[start].end : tokens[end - 1].start].strip()
        return Gap(value, True) if value else None
    if another_clause(command, start, end, verbs):
        return None
    return Gap(command.text[tokens[start].start : tokens[end - 1].end], False)


def _trimmed(token: Token, fillers: frozenset[str]) -> bool:
    """A token at a value's edge that is not part of the value."""
    if token.kind == "mark":
        return token.norm in EDGE_MARKS or token.norm in fillers
    return token.kind == "word" and token.norm in fillers


def another_clause(command: Command, start: int, end: int, verbs: frozenset[str]) -> bool:
    """Whether tokens[start:end] (quoted stretches aside) hold the start of another clause:

    - a word of ``CLAUSE_WORDS`` ("then", "afterwards") or a semicolon;
    - a sentence end (``.``, ``!``, ``?``) with more words after it;
    - a connector ("and", a comma, "&", "plus") followed, past fillers and "also", by a
      verb of ``verbs`` (``open the cart and check out``).
    """
    tokens = command.tokens
    for index in range(start, end):
        if command.quoted[index]:
            continue
        token = tokens[index]
        if token.norm in CLAUSE_WORDS or token.norm == ";":
            return True
        if token.kind == "mark" and token.norm in SENTENCE_ENDS:
            if command.words_between(index + 1, end) > 0:
                return True
        elif token.norm in CONNECTORS and _verb_follows(command, index + 1, end, verbs):
            return True
    return False


def _verb_follows(command: Command, start: int, end: int, verbs: frozenset[str]) -> bool:
    """Whether the first word from tokens[start] on, past fillers and "also", is a verb."""
    for index in range(start, end):
        token = command.tokens[index]
        if token.kind != "word" or command.quoted[index]:
            return False
        if token.norm in FILLERS or token.norm == "also":
            continue
        return token.norm in verbs
    return False


def strip_quotes(text: str) -> str:
    """``text`` without whitespace around it and a pair of quotes around all of it."""
    text = text.strip()
    command = Command.parse(text)
    last = len(command.tokens) - 1
    if last > 0 and command.partner.get(0) == last and command.tokens[last].end == len(text):
        return text[command.tokens[0].end : command.tokens[last].start].strip()
    return text


def split_list(text: str) -> list[str]:
    """The items of a list written "a, b and c", "a, b, c" or "a, b, and c" (a quoted
    item may hold commas and "and"); empty items are dropped."""
    command = Command.parse(text)
    items, start = [], 0
    for index, token in enumerate(command.tokens):
        if command.quoted[index] or token.norm not in (",", "and", "&", ";"):
            continue
        items.append(text[start : token.start])
        start = token.end
    items.append(text[start:])
    cleaned = (strip_quotes(item.strip().strip(",;")) for item in items)
    return [item for item in cleaned if item]


def match_text(command: str, template: str) -> dict[str, str] | None:
    """The values of ``template``'s parameters in ``command`` as text, or None when the
    command does not fit the template (one command and template; routing reads a
    command once for all templates)."""
    found = match_template(Command.parse(command), parse_template(template))
    return None if found is None else {name: gap.value for name, gap in found.values.items()}
