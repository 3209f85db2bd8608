"""Values a watch reads from the page a check ends on: a price, or any number the page
labels with a name ("Rating 4.6", "In stock: 3"). Page text is data: it is only searched."""

from __future__ import annotations

import re

#: Names read as the first amount of money on the page when no number follows the name.
MONEY_NAMES = frozenset({"price", "cost", "total", "amount"})
#: Always read, so that every check keeps the price of the page it ends on.
ALWAYS = ("price",)
NUMBER = r"\d{1,3}(?:[, \u00a0]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_MONEY = re.compile(
    rf"(?:[$€£¥]|\b(?:USD|EUR|GBP)) ?({NUMBER})|({NUMBER}) ?(?:[$€£¥]|(?:USD|EUR|GBP)\b)"
)
_NUMBER = re.compile(NUMBER)
NEAR = 40  # characters after a name within which its number is looked for, on its line
MAX_TEXT = 200_000  # characters of a page searched


def number(text: str) -> float:
    """``1,299.00`` -> 1299.0; ``89,90`` (a decimal comma) -> 89.9."""
    text = text.replace(" ", "").replace("\u00a0", "")
    if "," in text and "." not in text and re.fullmatch(r"\d+,\d{1,2}", text):
        text = text.replace(",", ".")
    return float(text.replace(",", ""))


def read_values(text: str, names: tuple[str, ...] | list[str] = ()) -> dict[str, float]:
    """The value of each name (and of ``price``) the page shows; a name it does not show
    is left out."""
    text = text[:MAX_TEXT]
    found: dict[str, float] = {}
    for name in dict.fromkeys([*ALWAYS, *names]):
        value = _labelled(text, name)
        if value is None and name in MONEY_NAMES:
            value = _first_money(text)
        if value is not None:
            found[name] = value
    return found


def _labelled(text: str, name: str) -> float | None:
    """The first number after ``name`` on the same line, within NEAR characters."""
    for match in re.finditer(rf"\b{re.escape(name)}\b", text, re.IGNORECASE):
        after = text[match.end() : match.end() + NEAR].split("\n", 1)[0]
        money = _MONEY.search(after)
        digits = _NUMBER.search(after)
        hit = money.group(1) or money.group(2) if money else digits.group(0) if digits else None
        if hit is not None:
            return number(hit)
    return None


def _first_money(text: str) -> float | None:
    match = _MONEY.search(text)
    return number(match.group(1) or match.group(2)) if match else None
