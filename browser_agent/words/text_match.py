"""Text as the checks compare it: case, accents, punctuation and spacing set aside."""

from __future__ import annotations

import re
import unicodedata


def normal(text: str) -> str:
    """``text`` as it is compared: case, accents, punctuation and spacing set aside."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[\W_]+", " ", folded).split())


def shows(haystack: str, value: str) -> bool:
    """Whether ``value``'s words occur, in order and as whole words, in ``haystack``
    (both already :func:`normal`)."""
    return bool(value) and f" {value} " in f" {haystack} "


#: How a link to the next page of a list or of results is named: by word or by arrow.
NEXT_PAGE_WORDS = ("next", "next page", "more results", "older")
_NEXT_PAGE_MARKS = frozenset({"\u2192", "\u203a", "\u00bb", ">", ">>"})


def next_page_names(words: tuple[str, ...] = NEXT_PAGE_WORDS) -> frozenset[str]:
    """``words`` as :func:`names_next_page` compares them (spacing and case aside)."""
    return frozenset(" ".join(w.split()).casefold() for w in words)


_NEXT_PAGE_NAMES = next_page_names()


def names_next_page(name: str, label: str = "", named: frozenset[str] = _NEXT_PAGE_NAMES) -> bool:
    """Whether a link or button named ``name`` (``label``: its aria-label) turns to the
    next page of results: Next, Next page, →, ›, », by any of ``named`` (see
    next_page_names)."""
    said = " ".join(name.split()).casefold()
    bare = said.strip(" \u2192\u203a\u00bb>")
    return said in _NEXT_PAGE_MARKS or bare in named or " ".join(label.split()).casefold() in named
