"""The conditions a watch stops (or notifies) on, in plain words, parsed into data and
checked against a check's values: nothing is evaluated as code.

- ``NAME under|below|less than|over|above|more than|at most|at least|equals NUMBER``
  (``price under 100``, ``the rating is at least 4.5``, ``stock equals 0``)
- ``[the answer|the page] contains TEXT`` and ``... does not contain TEXT``
- ``changes``, or ``NAME changes`` (``the price changes``)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from browser_agent.errors import UserError
from browser_agent.watch.page_values import NUMBER, number

COMPARISONS = {
    "under": "<",
    "below": "<",
    "less than": "<",
    "over": ">",
    "above": ">",
    "more than": ">",
    "at most": "<=",
    "at least": ">=",
    "equals": "==",
    "is": "==",
}
_WORDS = "|".join(sorted((re.escape(w) for w in COMPARISONS), key=len, reverse=True))
_LEAD = re.compile(r"^(?:when|until|if|once)\s+", re.IGNORECASE)
_NAME = r"(?:the\s+)?(?P<name>[a-z][a-z ]{0,38}?)"
_COMPARE = re.compile(
    rf"{_NAME}\s+(?:is\s+)?(?P<op>{_WORDS})\s+(?:[$€£¥]\s?)?(?P<number>-?(?:{NUMBER}))"
    r"\s?(?:[$€£¥]|usd|eur|gbp)?",
    re.IGNORECASE,
)
_CONTAINS = re.compile(
    r"(?:(?:the\s+)?(?P<where>answer|page)\s+)?(?P<negate>does\s+not\s+contain|doesn't\s+contain|"
    r"contains)\s+(?P<text>.+)",
    re.IGNORECASE,
)
_CHANGES = re.compile(rf"(?:{_NAME}\s+)?changes", re.IGNORECASE)
FORMS = (
    '"price under 100" (also below, over, above, at most, at least, equals), '
    '"the answer contains Sold out", "the page does not contain In stock", "price changes"'
)


class BadCondition(UserError):
    """A condition in words this small language does not have."""


@dataclass(frozen=True)
class Condition:
    """A parsed condition: ``kind`` compare, contains or changes."""

    text: str
    kind: str
    name: str | None = None  # the value compared or watched for a change
    op: str | None = None
    number: float | None = None
    where: str | None = None  # answer, page, or None for either
    words: str | None = None
    negate: bool = False

    def names(self) -> list[str]:
        """The values a check must read for this condition."""
        return [self.name] if self.name else []

    def holds(
        self,
        values: dict[str, float],
        answer: str,
        page: str,
        changed: dict[str, tuple[object, object]],
    ) -> bool:
        """Whether the condition holds for a check that found ``values``, ``answer`` and
        ``page`` text, and ``changed`` these (name: before, after) since the last check."""
        if self.kind == "compare":
            value = values.get(self.name or "")
            return value is not None and _compare(value, self.op or "==", self.number or 0.0)
        if self.kind == "contains":
            places = {"answer": [answer], "page": [page]}.get(self.where or "", [answer, page])
            found = any((self.words or "").casefold() in place.casefold() for place in places)
            return found != self.negate
        return bool(changed) if self.name is None else self.name in changed


def _compare(value: float, op: str, than: float) -> bool:
    return {
        "<": value < than,
        ">": value > than,
        "<=": value <= than,
        ">=": value >= than,
        "==": abs(value - than) < 1e-9,
    }[op]


def parse_condition(text: str) -> Condition:
    """The condition ``text`` says; BadCondition (one line, with the forms) otherwise."""
    said = _LEAD.sub("", " ".join(text.split())).rstrip(".")
    if match := _CONTAINS.fullmatch(said):
        words = match["text"].strip().strip("\"'“”‘’")
        if words:
            where = match["where"].lower() if match["where"] else None
            negate = not match["negate"].lower().startswith("contains")
            return Condition(text, "contains", where=where, words=words, negate=negate)
    if match := _COMPARE.fullmatch(said):
        op = COMPARISONS[" ".join(match["op"].lower().split())]
        name = " ".join(match["name"].lower().split())
        return Condition(text, "compare", name=name, op=op, number=number(match["number"]))
    if match := _CHANGES.fullmatch(said):
        name = " ".join(match["name"].lower().split()) if match["name"] else None
        return Condition(text, "changes", name=None if name in (None, "it", "page") else name)
    raise BadCondition(f"--until {text!r} is not a condition this watch knows; write {FORMS}")
