"""Word matching for the offline planner: normalize, stem, and compare phrases with page text;
and the quoted parts and list items of a command's text."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_WORD = re.compile(r"[^\W_]+")  # letters of any language and digits
#: A quoted part of a command: "double", “curly” or 'single' (not an apostrophe).
QUOTES = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<!\w)'[^']*'(?!\w)")
_ITEM_SPLIT = re.compile(r"\s*(?:,|;|\band\b)\s*", re.IGNORECASE)

#: Words that carry no meaning when a command names a target ("click THE Apply button").
STOPWORDS = frozenset(
    {
        *("a", "an", "the", "to", "of", "on", "in", "at", "for", "with", "and", "or", "by"),
        *("my", "me", "please", "this", "that", "it", "its", "your", "our", "is", "are", "be"),
        *("page", "button", "link", "tab", "field", "box", "input", "form", "into", "from"),
    }
)


def stem(word: str) -> str:
    """A crude singular: 'results' -> 'result', 'cookies' -> 'cookie', 'glass' stays; a
    'y' after a consonant meets its plural's 'ie' ('category' and 'categories' are both
    'categorie', 'key' and 'keys' both 'key')."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    if len(word) > 3 and word.endswith("y") and word[-2] not in "aeiouy":
        return f"{word[:-1]}ie"
    return word


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words of ``text``, stemmed, in order."""
    return [stem(w) for w in _WORD.findall(text.lower())]


def content_words(text: str) -> list[str]:
    """The words of ``text`` without stopwords, in order."""
    return [w for w in words(text) if w not in STOPWORDS]


def joined(text: str) -> str:
    """The words run together, so 'log in' meets 'Login' and 'check out' meets 'Checkout'."""
    return "".join(_WORD.findall(text.lower()))


def covers(haystack: str, phrase: str) -> bool:
    """True when every content word of ``phrase`` occurs in ``haystack`` (or they are one word)."""
    wanted = content_words(phrase)
    if not wanted:
        return False
    have = set(words(haystack))
    return all(w in have for w in wanted) or joined(phrase) == joined(haystack)


def holds_whole(text: str, phrase: str) -> bool:
    """The words of ``phrase`` occur in ``text`` in a row, in their order ("Bug #3 (New):
    Crash on start" holds "Crash on start" whole)."""
    have, wanted = words(text), words(phrase)
    return bool(wanted) and any(
        have[i : i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1)
    )


def closeness(a: str, b: str) -> float:
    """How alike two phrases are as word sequences, 0..1 (order matters: 'low to high')."""
    return SequenceMatcher(None, words(a), words(b)).ratio()


def precision(phrase: str, text: str) -> float:
    """The share of the words of ``text`` that the phrase accounts for (fewer extras is better)."""
    have = words(text)
    if not have:
        return 0.0
    wanted = set(words(phrase))
    return sum(1 for w in have if w in wanted) / len(have)


def unquote(text: str) -> str:
    """Strip surrounding quotes and sentence punctuation from a value taken from a command."""
    text = text.strip().rstrip(".!?;,").strip()
    pairs = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
    if len(text) >= 2 and pairs.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def mask_quotes(text: str) -> str:
    """The text with quoted parts replaced by x's of the same length (positions kept)."""
    return QUOTES.sub(lambda m: m.group(0)[0] + "x" * (len(m.group(0)) - 2) + m.group(0)[-1], text)


def items(text: str) -> list[str]:
    """The "label value" items of a list such as "name Ada, email ada@example.com and city X"."""
    masked = mask_quotes(text)
    parts, start = [], 0
    for match in _ITEM_SPLIT.finditer(masked):
        parts.append(text[start : match.start()])
        start = match.end()
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]
