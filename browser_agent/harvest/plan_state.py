"""The state of reading a run's log into a skill: the steps and parameters gathered so
far, and what the last observations showed of the page."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from browser_agent.dom.page_content import PAGE_END, PAGE_START
from browser_agent.harvest.calls import Call, ChatLog
from browser_agent.harvest.elements import (
    disabled_elements,
    observed_elements,
    toggle_elements,
)
from browser_agent.harvest.plan_words import plain
from browser_agent.plans.plan import RUN_ENDED, Param, PlannedStep
from browser_agent.skills.primitive import OBSERVATION_ONLY, PRIMITIVES, SAME_VIEW

# Calls that only look at the page.
OBSERVE = {"get_dom", "find_elements", "get_url", "tell_user"}
# Calls that act on the page, and how a call's answer says it failed.
ACTIONS = set(PRIMITIVES) - OBSERVATION_ONLY
FAILED = re.compile(r"^\s*(error|failed|unable|could not)\b", re.IGNORECASE)
HREF = re.compile(r"^\[(\d+)\][^\n]*?\shref=(\S+)", re.MULTILINE)


@dataclass
class PlanState:
    """What the reading of a log's calls has gathered so far: the skill's steps and
    parameters, where they were said, and the page as last observed."""

    log: ChatLog
    steps: list[PlannedStep] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    observed: dict[str, tuple[str, str]] = field(default_factory=dict)
    page_texts: set[str] = field(default_factory=set)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # param -> command span
    in_address: dict[str, str] = field(default_factory=dict)  # param -> its piece as opened
    start_url: str = ""
    end_url: str = ""
    ended: str = RUN_ENDED
    failed: list[str] = field(default_factory=list)
    disabled: set[str] = field(default_factory=set)  # mmids last observed disabled
    toggles: dict[str, bool] = field(default_factory=dict)  # mmid -> shown expanded
    at: int = 0  # the index of the call being taken
    quoted_only: bool = False  # only quoted values of the command become address parameters
    listed: dict[str, list[str]] = field(default_factory=dict)  # see SkillPlan.listed
    named: frozenset[str] = frozenset()  # see plan_skill
    skipped: Mapping[int, str] = field(default_factory=dict)  # see plan_skill
    hrefs: dict[str, str] = field(default_factory=dict)  # mmid -> address, last observed


def observe(state: PlanState, call: Call) -> None:
    """Keep what an observation call showed of the page: get_dom its elements, addresses,
    disabled fields and toggles; find_elements a few more elements of the same page;
    extract_text the text it read. One answered as the same view again keeps all."""
    if (call.response or "").startswith(SAME_VIEW.partition("{")[0]):
        return
    if call.name == "get_dom":
        state.observed = observed_elements(call.response)
        state.hrefs = dict(HREF.findall(call.response))
        state.disabled = disabled_elements(call.response)
        state.toggles = toggle_elements(call.response)
        state.page_texts |= {plain(name) for _role, name in state.observed.values()}
    elif call.name == "find_elements":  # a few more elements of the same page
        found = observed_elements(call.response)
        state.observed |= found
        state.page_texts |= {plain(name) for _role, name in found.values()}
    elif call.name == "extract_text":  # text read on the way: typing it would be reading
        state.page_texts |= {plain(line) for line in _read_lines(call.response) if line}


def _read_lines(response: str | None) -> list[str]:
    """The lines of page text a read answered with (written as a string literal between
    the page-content marks)."""
    start, end = (response or "").find(PAGE_START), (response or "").rfind(PAGE_END)
    if start < 0 or end < start:
        return []
    inside = (response or "")[start + len(PAGE_START) : end].strip()
    try:
        text = ast.literal_eval(inside)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        text = inside
    return str(text).splitlines()
