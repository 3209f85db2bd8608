"""The readings of a clicked element the command does not name: one choice among several
the page offered (a judgement over page content, or a value the site names with words of
its own around it), or a fixed control of the site."""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import urlsplit

from browser_agent.harvest.elements import selector_mmid
from browser_agent.harvest.plan_addresses import address_shape
from browser_agent.harvest.plan_params import holds_a_value, param_for
from browser_agent.harvest.plan_state import OBSERVE, PlanState
from browser_agent.harvest.plan_words import ORDINAL, quoted_values, where_said
from browser_agent.plans.plan import ElementRecord, Param, snake

# Elements that are one choice among several the page offers: clicking one the command
# does not name (by name or position) was a judgement over page content. (An element with
# no role may be a "Submit" drawn as a div: it is kept as a literal, like a button.)
CHOICE_ROLES = frozenset(
    {"link", "checkbox", "radio", "option", "menuitem", "menuitemcheckbox", "menuitemradio",
     "treeitem", "tab"}
)  # fmt: skip
# Choices that lead somewhere: one of them can be a fixed part of the application's UI.
NAVIGATION_ROLES = frozenset({"link", "tab", "menuitem"})
# A name made of digits and marks (a day "12", a count "3/4"): content. Marks alone ("+",
# an ellipsis, a hamburger) name a control of the site's own: a menu's toggle.
_NUMBER_LIKE = re.compile(r"[\W_]*\d[\W\d_]*")


def one_of_several(state: PlanState, mmid: str | None, record: ElementRecord) -> bool:
    """Whether the element is one choice among several the page offered: a link, box,
    option or tab; or an element with no role among others of its tag (suggestions,
    tree nodes), not the lone "Submit" a page drew as a div."""
    if record.role in CHOICE_ROLES:
        if record.role in ("radio", "checkbox") and _enables_next_field(state):
            return False
        return not (mmid is not None and _fixed_part(state, mmid, record))
    if record.role or mmid is None or mmid not in state.observed:
        return False
    tag = state.observed[mmid][0]
    return sum(1 for role, _name in state.observed.values() if role == tag) > 1


def _fixed_part(state: PlanState, mmid: str, record: ElementRecord) -> bool:
    """Whether a link or tab the command does not name may be a fixed part of the
    application's own UI ("Log In", "Edit this page", "New Ticket"), not one result
    among many: named (several of one name are told apart by the text near the one
    taken and its place among them, see skills.runtime), holding no value of the
    command (nor a number: a day, a count) in its name, and the command picks nothing
    by position ("the third page": then it was picked as one of several); the address
    it leads to may hold a value ("Edit this page" of the page named). The log cannot prove
    it: the step is kept as speculated, and a replay on fresh values bears the reading
    out or refutes it (see harvest.replay)."""
    if record.role not in NAVIGATION_ROLES or mmid not in state.observed:
        return False
    if not record.name:
        return False
    if ORDINAL.search(state.log.command):  # "the third page": a position picks it
        return False
    return not (_NUMBER_LIKE.fullmatch(record.name) or holds_a_value(state, record.name))


def _enables_next_field(state: PlanState) -> bool:
    """Whether the next action types a value the command says into a field that was
    disabled when last observed: choosing this radio or box is the step of the form
    that opens the field for the command's value, not a choice among page content."""
    for call in state.log.calls[state.at + 1 :]:
        if call.name in OBSERVE:
            continue
        target = selector_mmid(call.arguments.get("selector"))
        text = call.arguments.get("text")
        return (
            call.name == "enter_text"
            and target is not None
            and target in state.disabled
            and isinstance(text, str)
            and where_said(text, state.log.command) is not None
        )
    return False


def named_around(
    state: PlanState, record: ElementRecord, href: str = ""
) -> tuple[Param, str, str, bool] | None:
    """A link or button whose name is one of the command's values with a few words of
    the site's around it ("Milestone Sprint 4" for the milestone "Sprint 4", typed
    into a search or quoted): the parameter, the words before and after it, and whether
    those words change from item to item. They do when every number in them is in the
    element's address ``href`` ("Bug #6 (New): <title>" leading to /issues/6: the item's
    own number), and the element is then found by the value within its name. None when
    no value is in the name, or the rest holds another number or more words than a
    name's few (one result among many, not the thing the command names)."""
    quoted = [(v, None) for v in quoted_values(state.log.command)]
    known = [(p.example, p) for p in state.params if p.kind == "str"]
    for value, param in [*known, *quoted]:
        if not isinstance(value, str) or not value.strip():
            continue
        found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", record.name, re.I)
        if found is None:  # whole words only: "Sa" is not in "San Marino"
            continue
        before, after = record.name[: found.start()], record.name[found.end() :]
        rest = f"{before} {after}".split()
        numbers = re.findall(r"\d+", f"{before}{after}")
        own = set(re.findall(r"\d+", urlsplit(href).path))
        within = bool(numbers) and set(numbers) <= own
        if not rest or len(rest) > (5 if within else 3) or (numbers and not within):
            continue
        if param is None:
            said = where_said(value, state.log.command)
            if said is None:
                continue
            kind = record.role or "element"
            param = param_for(state, snake(f"{kind} name"), f"Name of the {kind}", value, said=said)
        return param, before, after, within
    return None


def listed_beside(state: PlanState, mmid: str, record: ElementRecord, param: Param) -> list[str]:
    """Other names of the element's role the page listed beside it, with nothing but
    text between them and no heading (a page's other pages, a list's other items, a
    table's other columns), each shown
    once, leading to an address of the same shape (the same path and query keys, the
    values aside), of the kind of the example (a number for a number) and holding no
    other value of the command: values the site itself offers for ``param``, the three
    nearest it."""
    lines = list(state.observed.values())
    index = list(state.observed).index(mmid)

    def apart(i: int) -> bool:  # a heading or another kind of control ends the list
        role = lines[i][0]
        return _heading(role) or role not in (record.role, "text", "")

    start = next((i + 1 for i in range(index - 1, -1, -1) if apart(i)), 0)
    end = next((i for i in range(index + 1, len(lines)) if apart(i)), None)
    counts = Counter(name for role, name in lines if role == record.role)
    others = [p for p in state.params if p is not param]
    numeric = record.name.strip().isdigit()
    keys = list(state.observed)
    shape = address_shape(state.hrefs.get(mmid, ""))
    near = sorted(range(start, len(lines) if end is None else end), key=lambda i: abs(i - index))
    return [
        name
        for key, (role, name) in ((keys[i], lines[i]) for i in near)
        if role == record.role
        and address_shape(state.hrefs.get(key, "")) == shape
        and name.strip()
        and name != record.name
        and counts[name] == 1
        and name.strip().isdigit() == numeric
        and not holds_a_value(state, name, params=others)
    ][:3]


def _heading(role: str) -> bool:
    """Whether a get_dom line of this role is a heading (h1 to h6)."""
    return len(role) == 2 and role[0] == "h" and role[1].isdigit()
