"""Detours of a run a skill need not take, known when the next action is on an element (by
role and name) the page already showed before the call: pointing at a menu that showed
nothing the run then used (a menu opened in vain while looking for a control), and a click
that led back to the page it was on (its title the same, no new control: a link to the
page itself). Such calls are left out of the skill speculatively: its verifying replays
decide, and a skill that fails without them is harvested again with every call (see
harvester.harvest_one)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from browser_agent.harvest.calls import Call
from browser_agent.harvest.elements import observed_elements, selector_mmid
from browser_agent.harvest.plan_addresses import url_after
from browser_agent.harvest.plan_state import ACTIONS, FAILED, OBSERVE

_TITLE = re.compile(r'^Page "(.*)" at ', re.MULTILINE)
UNUSED_POINTING = "the next action was on an element the page showed before it"
SAME_PAGE = "it led back to the page it was on, whose elements the next action used"


@dataclass
class _Look:
    """What the page showed at its latest look: elements by mmid, and its title."""

    elements: dict[str, tuple[str, str]]
    title: str | None = None


def run_detours(calls: list[Call]) -> dict[int, str]:
    """The calls (indexes) a skill may leave out, each with why: a hover that left the page
    where it was, or a click that came back to the same page (see _same_page), whose next
    action was on an element the look before the call showed already."""
    latest = _Look({})
    pending: tuple[int, _Look, str] | None = None  # the call, the look before it, and why
    found: dict[int, str] = {}
    for index, call in enumerate(calls):
        response = call.response or ""
        if call.name in OBSERVE:
            title = _TITLE.search(response)
            looked = observed_elements(response)
            latest = _Look(looked or latest.elements, title.group(1) if title else latest.title)
            continue
        if call.name not in ACTIONS or FAILED.match(response):
            continue
        if pending is not None:
            at, before, why = pending
            target = selector_mmid(call.arguments.get("selector"))
            element = latest.elements.get(target) if target else None
            same = why == UNUSED_POINTING or _same_page(before, latest)
            if element is not None and element in before.elements.values() and same:
                found[at] = why
        pending = None
        moved = url_after(response)
        if call.name == "hover" and not moved:
            pending = (index, latest, UNUSED_POINTING)
        elif call.name == "click" and moved:
            pending = (index, latest, SAME_PAGE)
        if call.name != "hover":
            latest = _Look({})  # what the action changed is looked at again
    return found


def _same_page(before: _Look, after: _Look) -> bool:
    """Whether a look after a click shows the page of the look before: the same title, and
    no control (by role and name) the look before did not show (the text aside, as a
    panel that loaded late adds some; a menu open before may have closed)."""

    def controls(look: _Look) -> set[tuple[str, str]]:
        return {element for element in look.elements.values() if element[0] != "text"}

    same_title = before.title is not None and after.title == before.title
    return same_title and controls(after) <= controls(before)
