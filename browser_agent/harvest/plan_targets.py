"""The element a step acts on, as the skill finds it again: a stable selector and record
in place of the log's mmid, by a name or position the command says, or apart from its
look-alikes (a toggle, another form's button)."""

from __future__ import annotations

import re
from typing import Any

from browser_agent.harvest.elements import Tag, element_record, selector_mmid, tag_for_selector
from browser_agent.harvest.plan_params import param_for
from browser_agent.harvest.plan_readings import (
    NAVIGATION_ROLES,
    listed_beside,
    named_around,
    one_of_several,
)
from browser_agent.harvest.plan_state import PlanState
from browser_agent.harvest.plan_words import CLAUSE_START, ORDINAL, ordinal_value, where_said
from browser_agent.plans.plan import ByRoleName, ElementRecord, NthOfRole, PlannedStep, snake
from browser_agent.skills.selectors import ANY_ROLE, CLOSE_MARKS, text_selector

# Controls whose accessible name is their label: a label the command happens to say ("sort
# by ...") names the control, it is not a value to pass in. The name of any other control
# (a button, link, tab, checkbox or radio label) is the choice itself: a parameter.
FIELD_ROLES = frozenset({"combobox", "listbox", "textbox", "searchbox", "spinbutton", "slider"})
# Roles whose elements a person ticks: several may be asked for at once, so their names
# are always a list parameter.
TICK_ROLES = frozenset({"checkbox", "switch", "menuitemcheckbox"})
# Tags a generic clickable element (one the page made clickable with a script) has; the
# page library names them by tag, with no ARIA role.
GENERIC_TAGS = frozenset(
    {"span", "div", "li", "p", "td", "th", "i", "b", "em", "strong", "small", "font", "dd",
     "dt", "section", "article", "header", "footer", "label", "svg", "use", "path", "g"}
)  # fmt: skip
_TEXT_ROLES = frozenset({"text", "h1", "h2", "h3", "h4", "h5", "h6"})


def find_target(
    state: PlanState, step: PlannedStep, key: str, selector: str, response: str, tag: Tag | None
) -> str | None:
    """Record the element a step's selector argument names, as the skill finds it
    again; a non-empty answer says why the skill ends here."""
    tag = tag or tag_for_selector(response, selector)
    mmid = selector_mmid(selector)
    if tag is None:
        if mmid:
            return f"the element {selector} of {step.primitive} is not described in the log"
        # The model wrote a selector of its own: guarded too (exactly one visible element),
        # though nothing says which role and name it had.
        step.targets[key] = ElementRecord(selector=selector, role=ANY_ROLE, name="", tag="")
        step.arguments[key] = selector
        return None
    role, name = state.observed.get(mmid, (None, None)) if mmid else (None, None)
    record = element_record(tag, role, name)
    if record is None and mmid:
        record = _by_label_before(state, mmid, tag, role)
    if record is None:
        return f"the element of {step.primitive} has nothing stable to find it by"
    if record.role in GENERIC_TAGS:  # a span or div a script made clickable
        record.role = ""
        if record.selector.startswith("role="):
            record.selector = text_selector(record.tag, record.name)
    said = _said_name(state, record)
    named = said is not None and said.group(0) in state.named
    if named:
        said = None  # a fixed control the command names: its name stays literal
    kind = record.role or "element"
    counted = mmid and said is None and not named
    position = _position(state, mmid, record.role) if counted else None
    if named:
        pass  # replays showed the command names this very control
    elif said is None and position is None and one_of_several(state, mmid, record):
        refused = _read_around(state, step, key, record, mmid)
        if refused:
            return refused
    elif said is None and position is None and record.role in NAVIGATION_ROLES:
        step.speculated = f"the {kind} {record.name!r} read as a fixed control of the site"
    if said is not None and record.role not in FIELD_ROLES:
        plural = record.role in TICK_ROLES
        noun = snake(f"{kind} names" if plural else f"{kind} name")
        description = f"Name{'s' if plural else ''} of the {kind}{'es' if plural else ''}"
        value = [said.group(0)] if plural else said.group(0)
        param = param_for(state, noun, description, value, "list" if plural else "str", said)
        step.arguments[key] = ByRoleName(record.role, param)
        if mmid and not plural and param.name not in state.listed:
            state.listed[param.name] = listed_beside(state, mmid, record, param)
    elif position is not None:
        param = param_for(
            state,
            "position",
            f"Which {kind} counting from the top (1st, 2nd, 3rd...)",
            position.group(0),
            "ordinal",
            position,
        )
        step.arguments[key] = NthOfRole(record.role, param)
    record.context = {**record.context, **(_context(state, mmid) if mmid else {})}
    if mmid and not _apart_from_toggles(state, step, mmid, record):
        _scope_to_form(state, step, mmid, record)
    step.targets[key] = record
    step.arguments.setdefault(key, record.selector)
    return None


def _read_around(
    state: PlanState,
    step: PlannedStep,
    key: str,
    record: ElementRecord,
    mmid: str | None,
) -> str:
    """One of several elements of its kind, read as named by a value of the command among
    the site's words (around it, or within its item's own words): the step's argument
    and the reading the replays decide; "" when so read, else why the skill ends here."""
    kind = record.role or "element"
    href = record.attributes.get("href") or state.hrefs.get(mmid, "") if mmid else ""
    around = named_around(state, record, href)
    if around is None:
        return f"choosing the {kind} {record.name!r} was a choice among page content"
    param, before, after, within = around
    if within:
        step.arguments[key] = ByRoleName(record.role, param, within=True)
        step.speculated = (
            f"the {kind} {record.name!r} read as holding {param.name} among words of "
            f"its item's own (its number, as in its address {href})"
        )
        return ""
    step.arguments[key] = ByRoleName(record.role, param, before, after)
    step.speculated = (
        f"the {kind} {record.name!r} read as named by {param.name} with the site's "
        f"words {(before + '…' + after).strip()!r} around it"
    )
    if mmid and param.name not in state.listed:  # the site's other such values
        names = listed_beside(state, mmid, record, param)
        state.listed[param.name] = _values_within(names, before, after)
    return ""


def _values_within(names: list[str], before: str, after: str) -> list[str]:
    """The values named by the site's words around them ("Sprint 30" of "Milestone Sprint
    30"), of the names that have those words."""
    values = []
    for name in names:
        if name.startswith(before) and name.endswith(after):
            value = name[len(before) : len(name) - len(after)].strip()
            if value:
                values.append(value)
    return values


def _apart_from_toggles(
    state: PlanState, step: PlannedStep, mmid: str, record: ElementRecord
) -> bool:
    """A button named like a toggle the page also shows (a "Publish" that opens the
    panel holding the "Publish" that publishes) is found as the one that toggles
    nothing, and the toggle as the one that does. False when the page's same-named
    buttons are not told apart so."""
    if step.primitive != "click" or record.role != "button" or mmid not in state.observed:
        return False
    seen, toggle = state.observed[mmid], mmid in state.toggles
    others = [key for key, same in state.observed.items() if same == seen and key != mmid]
    if not others or any((key in state.toggles) == toggle for key in others):
        return False
    if not record.selector.startswith("role="):
        return False
    if toggle:
        shown = "true" if state.toggles[mmid] else "false"
        record.selector = f"{record.selector}[expanded={shown}]"
    elif record.tag:
        record.selector = text_selector(f"{record.tag}:not([aria-expanded])", record.name)
    else:
        return False
    return True


def _scope_to_form(state: PlanState, step: PlannedStep, mmid: str, record: ElementRecord) -> bool:
    """A button the page shows several times ("Go" under each form) is found within
    the form of the field the run filled just before it on this page, never by page
    order; the scope is kept in the record's context. False when it is not needed or
    no such field is known."""
    if step.primitive != "click" or record.role != "button" or mmid not in state.observed:
        return False
    if sum(1 for seen in state.observed.values() if seen == state.observed[mmid]) < 2:
        return False
    field_selector = _field_before(state)
    if field_selector is None:
        return False
    record.selector = f"form:has({field_selector}) >> {record.selector}"
    record.context["form_of"] = field_selector
    return True


def _field_before(state: PlanState) -> str | None:
    """The CSS selector of the last field filled on the current page, if any."""
    for earlier in reversed(state.steps):
        if earlier.navigated_to is not None or earlier.primitive == "open_url":
            return None
        if earlier.primitive in ("enter_text", "select_option"):
            target = next(iter(earlier.targets.values()), None)
            if target is not None and re.fullmatch(
                r"#[\w-]+|\w+\[[\w-]+=\"[^\"]*\"\]", target.selector
            ):
                return target.selector
            return None
    return None


def _by_label_before(
    state: PlanState, mmid: str, tag: Tag, role: str | None
) -> ElementRecord | None:
    """A field with no name or id of its own, found by the text just before it ("Genre"
    then an unlabelled box), as a person reads a form."""
    if role not in FIELD_ROLES or mmid not in state.observed:
        return None
    lines = list(state.observed.items())
    index = [key for key, _seen in lines].index(mmid)
    if index == 0:
        return None
    _key, (before_role, label) = lines[index - 1]
    if before_role != "text" or not label or '"' in label or len(label) > 60:
        return None
    selector = f'xpath=(//*[normalize-space(text())="{label}"]/following::{tag.tag})[1]'
    return ElementRecord(
        selector=selector,
        role=role,
        name="",
        tag=tag.tag,
        attributes={k: v for k, v in tag.attributes.items() if k == "type"},
        context={"label": label},
    )


def _said_name(state: PlanState, record: ElementRecord) -> re.Match[str] | None:
    """Where the command names this element, unless only its first word (a verb: "Close
    the dialog") does; an "x" names a close button."""
    names = [record.name]
    if record.role == "button" and record.name.strip().lower() in ("close", "dismiss"):
        names += CLOSE_MARKS
    for name in names:
        said = where_said(name, state.log.command, whole=len(name) == 1)
        if said and not CLAUSE_START.search(state.log.command[: said.start()]):
            return said
    return None


def _position(state: PlanState, mmid: str, role: str) -> re.Match[str] | None:
    """The ordinal in the command ("3rd") that counts the element among the visible
    elements of its role, as last observed; None when no ordinal says its position."""
    same = [key for key, (seen_role, _name) in state.observed.items() if seen_role == role]
    if mmid not in same:
        return None
    for match in ORDINAL.finditer(state.log.command):
        if ordinal_value(match) == same.index(mmid) + 1:
            return match
    return None


def _context(state: PlanState, mmid: str) -> dict[str, Any]:
    """What tells the element from others of its role and name: the nearest heading or
    text before it, and its place among its equals, as last observed."""
    if mmid not in state.observed:
        return {}
    lines = list(state.observed.items())
    index = [key for key, _seen in lines].index(mmid)
    heading = next(
        (name for _key, (role, name) in reversed(lines[:index]) if role in _TEXT_ROLES and name),
        "",
    )
    equals = [key for key, seen in lines if seen == state.observed[mmid]]
    return {"heading": heading[:120], "index": equals.index(mmid)}
