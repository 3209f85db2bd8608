"""One identity for an element, by many attributes scored together (after Similo).

A skill's recorded element is looked for among the visible elements of its role on the
page as it is now. Each candidate is scored by how many of the things recorded about the
element it shares, each weighed by how well it tells one control from another: an id, a
test id, the address a link goes to (its path and query keys, the values that vary with
the command aside) and a form field's name are strong; its accessible name, hints, the
heading or text before it, its landmark, label and classes are medium; its type, tag and
place among its equals are weak. The best candidate is the element only when it is
clearly ahead of the next one; otherwise it is a guess and is said to be one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from browser_agent.dom.library import run_on_page


class Target(Protocol):
    """What was recorded about an element (a runtime.Target)."""

    role: str
    name: str
    tag: str
    text: str
    attributes: dict[str, str]
    near: str
    among: int


# What each shared thing weighs. Strong: what a page gives one control only (an id, a test
# id, its address, a form field's name). Medium: what people read, which a new language or
# look rewords (name, hints, heading, label) or which many controls share (landmark, class).
# Weak: what most candidates of a role share (type, tag) and the place among equals.
WEIGHTS: dict[str, float] = {
    "id": 3.0,
    "test id": 3.0,
    "address": 2.5,
    "name attribute": 2.0,
    "name": 1.5,
    "hint": 1.0,
    "heading": 1.0,
    "label": 1.0,
    "landmark": 1.0,
    "class": 0.75,
    "type": 0.5,
    "tag": 0.5,
    "place": 0.25,
}
# An address that matches only once the values that vary are set aside (a page's title,
# a number) is weaker evidence than the same address.
PATTERN = 0.85
# The best must hold at least this much: one strong thing, or two medium things together.
MINIMUM = 2.0
# ... and this many times the runner-up's score. An address pattern and a tag shared by two
# candidates (2.6) are told apart by one medium thing more (3.6 / 2.6 = 1.38), never by
# weak ones alone (order and type: 3.1 / 2.6 = 1.19), which is choosing by order.
MARGIN = 1.3
# What counted for less than this is left out of what a repair says identified it.
SAYS = 0.5


@dataclass
class Match:
    """The best candidate for a recorded element: a selector that names it alone, its
    score and the runner-up's, what it shares with the record, and whether it is only a
    guess (not clearly ahead: it is never acted on)."""

    selector: str
    score: float
    second: float
    shared: list[str]  # what it shares with the record that counted, most first
    name: str
    guess: bool
    second_name: str = ""
    second_selector: str = ""

    def renamed(self, recorded_name: str) -> bool:
        """Whether the element it found goes by another name than the one recorded."""
        return _norm(self.name) != _norm(recorded_name)

    def said(self, recorded_name: str) -> str:
        """What identified it, for a repair: "its identity (id, address and place; name
        now 'Diese Seite bearbeiten')"."""
        shared = self.shared
        listed = ", ".join(shared[:-1]) + f" and {shared[-1]}" if len(shared) > 1 else shared[0]
        renamed = self.renamed(recorded_name)
        return f"its identity ({listed}{f'; name now {self.name!r}' if renamed else ''})"

    def guessed(self, recorded_name: str) -> str:
        """Why the best candidate is not taken: the guess and its runner-up."""
        return (
            f"By its identity the {recorded_name!r} element would be {self.name!r} "
            f"({self.selector}, score {self.score}), but {self.second_name!r} "
            f"({self.second_selector}) scores {self.second}, too close (a clear match scores "
            f"{MARGIN} times the next): that is a guess, so the step was not done."
        )


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def text_similarity(a: str, b: str) -> float:
    """1 for the same text (case and spacing aside), else the share of words they have in
    common (0 when either is empty)."""
    if not a.strip() or not b.strip():
        return 0.0
    if _norm(a) == _norm(b):
        return 1.0
    left, right = (set(re.findall(r"\w+", t.casefold())) for t in (a, b))
    return len(left & right) / len(left | right) if left | right else 0.0


def _varies(recorded: str, seen: str, varying: set[str]) -> bool:
    """Whether two different parts of an address may be one value the command varies:
    both numbers, or the one seen is a value of the page's own address (or the command)."""
    return (recorded.isdigit() and seen.isdigit()) or (bool(seen) and _norm(seen) in varying)


def address_similarity(recorded: str, seen: str, varying: set[str]) -> float:
    """1 for the same path and query; PATTERN when they differ only in values that vary
    (path segments and query values; the query's keys must be the same); else 0."""
    if not recorded or not seen:
        return 0.0
    old, new = urlsplit(recorded), urlsplit(seen)
    if (old.path, old.query) == (new.path, new.query):
        return 1.0
    old_parts, new_parts = old.path.strip("/").split("/"), new.path.strip("/").split("/")
    old_query, new_query = dict(parse_qsl(old.query)), dict(parse_qsl(new.query))
    if len(old_parts) != len(new_parts) or set(old_query) != set(new_query):
        return 0.0
    pairs = [*zip(old_parts, new_parts, strict=True)]
    pairs += [(old_query[key], new_query[key]) for key in old_query]
    same = all(
        unquote(a) == unquote(b) or _varies(unquote(a), unquote(b), varying) for a, b in pairs
    )
    return PATTERN if same else 0.0


def varying_values(url: str, values: Iterable[str] = ()) -> set[str]:
    """The values an address of this page may carry in place of the recorded ones: the
    segments and query values of the page's own address, and the command's values."""
    parts = urlsplit(url)
    found = {unquote(s) for s in parts.path.split("/") if s}
    found |= {v for _k, v in parse_qsl(parts.query)} | set(values)
    return {_norm(v) for v in found if v.strip()}


def score(target: Target, seen: dict[str, Any], varying: set[str]) -> dict[str, float]:
    """What ``seen`` (a candidate read by the page library) shares with the recorded
    ``target``: thing -> points (its weight times how alike it is)."""
    recorded = target.attributes
    points: dict[str, float] = {}

    def add(thing: str, likeness: float) -> None:
        if likeness > 0:
            points[thing] = max(points.get(thing, 0.0), WEIGHTS[thing] * likeness)

    for thing, key, seen_key in (
        ("id", "id", "id"),
        ("test id", "data-testid", "testid"),
        ("name attribute", "name", "name_attr"),
        ("type", "type", "type"),
    ):
        if recorded.get(key):
            add(thing, float(recorded[key].casefold() == str(seen.get(seen_key, "")).casefold()))
    href = _recorded_href(target, seen.get("base", ""))
    add("address", address_similarity(href, seen.get("href", ""), varying))
    add(
        "name",
        max(text_similarity(target.name, seen["name"]), text_similarity(target.text, seen["name"])),
    )
    for key in ("aria-label", "placeholder", "title", "alt"):
        add("hint", text_similarity(recorded.get(key, ""), seen.get(key.replace("-", "_"), "")))
    for key in ("heading", "near", "label"):  # the text recorded before it may be any of them
        add("heading", text_similarity(target.near, seen.get(key, "")))
    add("label", text_similarity(recorded.get("label", ""), seen.get("label", "")))
    add(
        "landmark",
        float(bool(recorded.get("landmark")) and recorded.get("landmark") == seen["landmark"]),
    )
    old_classes, new_classes = set(recorded.get("class", "").split()), set(seen.get("classes", []))
    if old_classes:
        add("class", len(old_classes & new_classes) / len(old_classes | new_classes))
    add("tag", float(bool(target.tag) and target.tag == seen["tag"]))
    add("place", float(seen.get("among") == target.among))
    return points


def _recorded_href(target: Target, base: str) -> str:
    """The recorded link's address on this page ("" for one that goes nowhere of its own)."""
    href = target.attributes.get("href", "")
    if not href or href.startswith("#") or href.lower().startswith("javascript:"):
        return ""
    return urljoin(base, href)


def contradicts(target: Target, seen: dict[str, Any], varying: set[str]) -> bool:
    """Whether ``seen`` is another control whatever else it shares: a link that goes
    elsewhere than the recorded one (not even by its pattern), or a form field sent under
    another name. (An id may be made anew by each build: it is not a contradiction.)"""
    recorded = target.attributes
    href = _recorded_href(target, seen.get("base", ""))
    if href and seen.get("href") and not address_similarity(href, seen["href"], varying):
        return True
    name = recorded.get("name", "")
    return bool(name and seen.get("name_attr") and seen["name_attr"] != name)


async def candidates(page: Page | Frame, target: Target) -> list[dict[str, Any]]:
    """The visible elements of the target's role (its tag when it has none), read in one
    evaluation; each gets ``among``, its place among those of its name, and ``base``."""
    try:
        seen = await run_on_page(page, "candidates", role=target.role or "", tag=target.tag)
    except PlaywrightError:
        return []
    named: dict[str, int] = {}
    for item in seen:
        item["among"] = named.get(_norm(item["name"]), 0)
        named[_norm(item["name"])] = item["among"] + 1
        item["base"] = page.url
        if item["raw_href"].startswith("#") or item["raw_href"].lower().startswith("javascript:"):
            item["href"] = ""  # goes nowhere of its own: no address to know it by
    return seen


async def _alone(page: Page | Frame, selector: str) -> bool:
    """Whether ``selector`` names exactly one element, a visible one."""
    try:
        located = page.locator(selector)
        return await located.count() == 1 and await located.is_visible()
    except PlaywrightError:
        return False


async def selector_for(page: Page | Frame, seen: dict[str, Any]) -> str:
    """A selector that names the candidate alone, the steadiest first: its id, its name
    attribute, its role and name, its address; else its path in the page."""

    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    tries = []
    if seen["id"] and seen["id_unique"]:
        tries.append(f"{seen['tag']}[id={quoted(seen['id'])}]")
    if seen["name_attr"]:
        tries.append(f"{seen['tag']}[name={quoted(seen['name_attr'])}]")
    if seen["role"] and seen["name"]:
        tries.append(f"role={seen['role']}[name={quoted(seen['name'])}s]")
    if seen["raw_href"]:
        tries.append(f"{seen['tag']}[href={quoted(seen['raw_href'])}]")
    for selector in tries:
        if await _alone(page, selector):
            return selector
    return seen["path"]


async def best_match(
    page: Page | Frame, target: Target, values: Iterable[str] = ()
) -> Match | None:
    """The candidate on ``page`` that best fits what was recorded about ``target``; None
    when no candidate holds MINIMUM. Not clearly ahead (MARGIN) of the next: a guess. When
    some candidate still bears the recorded name, only those are candidates: the name
    still on the page says which control it is, and one with another name is another."""
    found = await candidates(page, target)
    if target.name and any(_norm(c["name"]) == _norm(target.name) for c in found):
        found = [c for c in found if _norm(c["name"]) == _norm(target.name)]
    varying = varying_values(page.url, values)
    found = [seen for seen in found if not contradicts(target, seen, varying)]
    scored = [(sum(p.values()), p, seen) for seen in found for p in [score(target, seen, varying)]]
    scored.sort(key=lambda item: -item[0])
    if not scored or scored[0][0] < MINIMUM:
        return None
    best, points, seen = scored[0]
    second, _points, runner_up = [*scored, (0.0, {}, {"name": "", "path": ""})][1]
    shared = sorted(points, key=lambda thing: -points[thing])  # what counted, most first
    shared = [thing for thing in shared if points[thing] >= SAYS and thing != "tag"] or shared
    return Match(
        selector=await selector_for(page, seen),
        score=round(best, 2),
        second=round(second, 2),
        shared=shared,
        name=seen["name"],
        guess=best < MARGIN * second,
        second_name=runner_up["name"],
        second_selector=runner_up["path"],
    )
