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
