"""Detours of a run a skill need not take: pointing at a menu that showed nothing the run
then used (a menu opened in vain while looking for a control), known when the next action
is on an element the page already showed before the pointing. Such calls are left out of
the skill speculatively: its verifying replays decide, and a skill that fails without them
is harvested again with every call (see harvester.harvest_one)."""

from __future__ import annotations

import re

from browser_agent.harvest.calls import Call
from browser_agent.harvest.elements import observed_elements
from browser_agent.harvest.plan_addresses import url_after
from browser_agent.harvest.plan_state import ACTIONS, FAILED, OBSERVE

_MMID = re.compile(r"mmid\s*=\s*['\"]?(\d+)")
UNUSED_POINTING = "the next action was on an element the page showed before it"


def unused_pointing(calls: list[Call]) -> dict[int, str]:
    """The calls (indexes) that pointed at an element (hover) and left the page where it
    was, whose next action was on an element (by role and name) the page's last look
    before the pointing showed already; each with why it may be left out."""
    latest: dict[str, tuple[str, str]] = {}  # mmid -> (role, name) of the latest look
    before: set[tuple[str, str]] = set()  # what the page showed when the pending pointing came
    pending: int | None = None
    found: dict[int, str] = {}
    for index, call in enumerate(calls):
        response = call.response or ""
        if call.name in OBSERVE:
            latest = observed_elements(response) or latest
            continue
        if call.name not in ACTIONS or FAILED.match(response):
            continue
        if pending is not None:
            target = _MMID.search(str(call.arguments.get("selector", "")))
            if target is not None and latest.get(target.group(1)) in before:
                found[pending] = UNUSED_POINTING
            pending = None
        if call.name == "hover" and not url_after(response):
            pending, before = index, set(latest.values())
        else:
            latest = {}  # what the action changed is looked at again
    return found
