"""Reading a run's log into a skill plan: observation-only calls are dropped, failed
attempts skipped, every mmid replaced by a stable selector, and values that came from the
command become parameters. The stretch ends at the first step that needed reasoning over
varying page content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from browser_agent.browser.dialogs import ANSWERED
from browser_agent.harvest.calls import Call, ChatLog
from browser_agent.harvest.elements import Tag, find_tags
from browser_agent.harvest.plan_addresses import (
    address_url,
    end_address,
    keep_labels_literal,
    path_varies,
    relative,
    url_after,
    went_by_get,
)
from browser_agent.harvest.plan_params import read_off_page, step_value
from browser_agent.harvest.plan_state import ACTIONS, FAILED, OBSERVE, PlanState, observe
from browser_agent.harvest.plan_targets import TICK_ROLES, find_target
from browser_agent.harvest.plan_words import CLAUSE_BREAK, LIST_GAP, PATH_GAP, contradicted
from browser_agent.plans.plan import (
    RESERVED_NAMES,
    RUN_ENDED,
    BuiltUrl,
    ByRoleName,
    NotHarvestable,
    Param,
    PlannedStep,
    SkillPlan,
    asks_for_information,
    param_items,
    snake,
)
from browser_agent.secrets import MASK
from browser_agent.sites.request_tokens import refused_url
from browser_agent.skills.primitive import NOT_REPLAYABLE

SELECTOR_ARGS = ("selector", "text_selector", "click_selector")
_APPEARED = re.compile(r"\bnew elements? appeared|elements? (?:were )?added", re.IGNORECASE)


def plan_skill(
    log: ChatLog, named: frozenset[str] = frozenset(), skipped: Mapping[int, str] | None = None
) -> SkillPlan:
    """The harvestable stretch of a successful run, or NotHarvestable saying why not.
    ``named``: values of the command that name a fixed control (replays refuted reading
    them as a choice among what the site listed), kept as literal names; ``skipped``: the
    log's calls (indexes) left out, each with why (replays showed only the demonstration's
    values needed it, a page of results turned to find its thing; or it was a detour, see
    detours)."""
    if log.routed_to:
        raise NotHarvestable(f"{log.path}: done by the skill {log.routed_to}: nothing to learn")
    if not log.succeeded:
        raise NotHarvestable(f"{log.path}: the run did not succeed")
    if not log.calls:
        raise NotHarvestable(f"{log.path}: the run made no tool calls")
    return build_plan(PlanState(log, named=named, skipped=skipped or {}))


def build_plan(state: PlanState) -> SkillPlan:
    """The plan of the state's log: its calls taken in turn until one ends the skill."""
    left_out: list[str] = []
    for index, call in enumerate(state.log.calls):
        state.at = index
        if index in state.skipped:
            state.failed.append(f"call {index + 1} ({call.name}) left out: {state.skipped[index]}")
            continue
        reason = _take(state, call)
        if reason is None and call.name in ACTIONS and FAILED.match(call.response or ""):
            state.failed.append(
                f"call {index + 1} ({call.name}) left out: it failed and the run went on "
                f"without it ({call.response.strip()[:120]})"
            )
        if reason:
            state.ended = reason
            left_out = _not_taken(state.log.calls[index:], reason)
            break
    _group_lists(state)
    keep_labels_literal(state)
    for step in state.steps:
        step.path_varies = step.navigated_to is not None and path_varies(
            step.navigated_to, state.params
        )
    actions = [s for s in state.steps if s.primitive != "open_url"]
    if not actions:
        left_out = "".join(f"; {reason}" for reason in state.log.dropped)
        raise NotHarvestable(f"{state.log.path}: no reusable actions ({state.ended}{left_out})")
    lacks, done_upto = "", len(state.log.command)
    if left_out or state.log.dropped or asks_for_information(state.log.command):
        lacks, done_upto = _lacks(state)
    return SkillPlan(
        command=state.log.command,
        template=_template(state),
        params=state.params,
        steps=state.steps,
        start_url=state.start_url,
        end_url=state.end_url,
        ended_because=state.ended,
        source=state.log.run_id or state.log.path,
        dropped=list(state.log.dropped),
        left_out=left_out,
        lacks=lacks,
        done_template=_template(state, done_upto),
        failed=state.failed,
        end_address=end_address(state),
        listed=state.listed,
    )


def _take(state: PlanState, call: Call) -> str | None:
    """Add one call to the skill; a non-empty answer says why the skill ends here."""
    if call.response is None:
        return f"the log stops before {call.name} was answered"
    if call.name in OBSERVE or (call.name == "extract_text" and _acts_after(state)):
        observe(state, call)
        return None
    if FAILED.match(call.response):
        return None  # a failed attempt: the model tried again in a later call
    if call.name == "finish":
        return RUN_ENDED
    if call.name in NOT_REPLAYABLE:
        return f"{call.name} ({call.response}) cannot be a step: {NOT_REPLAYABLE[call.name]}"
    if call.name not in ACTIONS:
        return f"{call.name} needs judgement over page content"
    if "__invalid__" in call.arguments:
        return f"{call.name} had arguments that are not JSON"
    if call.name == "open_url":
        return _open(state, call)
    if call.name == "bulk_enter_text":
        return _bulk(state, call)
    return _action(state, call.name, call.arguments, call.response)


def _acts_after(state: PlanState) -> bool:
    """Whether an action the run did not take back follows the call being taken: a read
    on the way (what a field holds before adding to it) is speculated to be only a look,
    and the replays on fresh values decide; a read the run ends with is its answer."""
    return any(
        later.name in ACTIONS and not FAILED.match(later.response or "")
        for later in state.log.calls[state.at + 1 :]
    )


def _action(
    state: PlanState, name: str, arguments: dict[str, Any], response: str, tag: Tag | None = None
) -> str | None:
    """Add one primitive call; ``tag`` names its element when the caller paired it."""
    typed = arguments.get("text")
    if isinstance(typed, str) and typed != MASK and read_off_page(state, typed):
        return f"the text {typed!r} it typed was read off the page, not said in the command"
    if isinstance(typed, str) and (said := contradicted(typed, state.log.command)):
        return (
            f"the text {typed!r} it typed is not the command's {said!r} (a value corrected "
            "during the run): teach it again with a command that says what was typed"
        )
    step = PlannedStep(name, {}, call=state.at)
    for key, value in arguments.items():
        if key in SELECTOR_ARGS:
            problem = find_target(state, step, key, str(value), response, tag)
            if problem:
                return problem
        else:
            step.arguments[key] = step_value(state, step, key, value, response)
    navigated = url_after(response)
    if navigated:
        state.end_url = navigated
        step.navigated_to = relative(navigated)
        step.address = went_by_get(state, step, navigated, response)
    step.appeared = bool(_APPEARED.search(response))
    answered = ANSWERED.findall(response)
    if answered:
        step.accept_dialogs = answered[-1][1] == "accepted"
    step.checked = name == "click" and any(
        t.role in (*TICK_ROLES, "radio") for t in step.targets.values()
    )
    state.steps.append(step)
    if navigated:
        state.observed, state.disabled = {}, set()
    return None


def _bulk(state: PlanState, call: Call) -> str | None:
    """A form filled in one call becomes one enter_text step per field, in order."""
    entries = call.arguments.get("entries")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return "bulk_enter_text had entries that are not a list of fields"
    tags = find_tags(call.response or "")
    for index, entry in enumerate(entries):
        tag = tags[index] if len(tags) == len(entries) else None
        arguments = {"selector": entry.get("selector", ""), "text": entry.get("text", "")}
        problem = _action(state, "enter_text", arguments, call.response or "", tag)
        if problem:
            return problem
    return None


def _open(state: PlanState, call: Call) -> str | None:
    """Add an open_url call: the skill's start address, or a page of the stretch."""
    url = str(call.arguments.get("url", ""))
    loaded = url_after(call.response) or url
    if refused := refused_url(loaded, not state.steps, state.log.command):
        return refused
    if not state.steps:  # the site's address, or a page of it the command names
        # the address asked for, when the site only moved it on within itself (its
        # front page to /index.php/Main_Page): the one a command is given to start from
        asked = url if urlsplit(url).netloc == urlsplit(loaded).netloc else loaded
        state.quoted_only = True  # the page a run starts on is named by a quoted value
        built = address_url(state, asked)
        state.quoted_only = False
        state.start_url = asked
        start = built if isinstance(built, BuiltUrl) else Param("start_url", "", asked)
        state.steps.append(PlannedStep("open_url", {"url": start}))
    else:
        url = address_url(state, loaded)
        state.steps.append(PlannedStep("open_url", {"url": url}))
    state.end_url = loaded
    state.observed, state.disabled = {}, set()
    return None


def _lacks(state: PlanState) -> tuple[str, int]:
    """The clauses of the command past the last one a step of the skill covers (by a
    value it takes), in the command's words, and where they start; when every clause
    is covered, what the skill leaves to do after its last step."""
    command = state.log.command
    ends = [
        span[1] for name, span in state.spans.items() if any(p.name == name for p in state.params)
    ]
    covered = max(ends, default=0)
    for cut in CLAUSE_BREAK.finditer(command):
        if cut.start() >= covered:
            rest = command[cut.end() :].strip(" .")
            if rest:
                return rest, cut.start()
    if asks_for_information(command) and not state.log.dropped:
        return "read the answer off the page", len(command)
    return "the steps its run took after its last one", len(command)


def _group_lists(state: PlanState) -> None:
    """Consecutive steps on items the command lists ("a, b and c", "File > Save") become
    one step over a list parameter: the generated code loops over its items."""
    grouped: list[PlannedStep] = []
    for step in state.steps:
        last = grouped[-1] if grouped else None
        joined = _join(state, last, step) if last is not None else None
        if joined is not None:
            grouped[-1] = joined
        else:
            grouped.append(step)
    state.steps = grouped


def _join(state: PlanState, first: PlannedStep, second: PlannedStep) -> PlannedStep | None:
    """One step doing both, when the second acts on the next item of a list or path."""
    a, b = _by_name(first), _by_name(second)
    if a is None or b is None or a[1].role != b[1].role or a[0] != b[0]:
        return None
    key, left, right = a[0], a[1].param, b[1].param
    start, end = state.spans.get(left.name), state.spans.get(right.name)
    if start is None or end is None or end[0] <= start[1]:
        return None
    gap = state.log.command[start[1] : end[0]]
    path = left.kind in ("str", "path") and PATH_GAP.match(gap) is not None
    if path and first.primitive == "hover" and second.primitive in ("hover", "click"):
        return _merge(state, first, second, key, left, right, "path", second.primitive)
    if LIST_GAP.match(gap) and first.primitive == second.primitive and left.kind != "path":
        return _merge(state, first, second, key, left, right, "list", first.primitive)
    return None


def _merge(
    state: PlanState,
    first: PlannedStep,
    second: PlannedStep,
    key: str,
    left: Param,
    right: Param,
    kind: str,
    primitive: str,
) -> PlannedStep:
    """The two steps as one over a list (or path) parameter spanning both values."""
    start, end = state.spans[left.name][0], state.spans[right.name][1]
    said = state.log.command[start:end]
    items = param_items(left) + param_items(right)
    example: Any = items if kind == "list" else said
    role = first.targets[key].role or "element"
    base = snake(f"{role} names") if kind == "list" else "menu_path"
    description = (
        f"Names of the {role}es to act on, e.g. {said!r}"
        if kind == "list"
        else f"The items to open in turn, the last one chosen, e.g. {said!r}"
    )
    state.params = [p for p in state.params if p not in (left, right)]
    for param in (left, right):
        state.spans.pop(param.name, None)
    merged = Param(base, description, example, kind, said)
    taken = {p.name for p in state.params} | RESERVED_NAMES
    n = 2
    while merged.name in taken:
        merged.name, n = f"{base}_{n}", n + 1
    state.params.append(merged)
    state.spans[merged.name] = (start, end)
    arguments = dict(first.arguments)
    arguments[key] = ByRoleName(first.arguments[key].role, merged)
    return PlannedStep(
        primitive,
        arguments,
        targets=first.targets,
        navigated_to=second.navigated_to,
        appeared=second.appeared,
        checked=first.checked and second.checked,
    )


def _template(state: PlanState, upto: int | None = None) -> str:
    """The command (up to ``upto``) with each parameter's words replaced by ``{name}``."""
    command = state.log.command[:upto]
    cuts = sorted(
        (span, name)
        for name, span in state.spans.items()
        if any(p.name == name for p in state.params) and span[1] <= len(command)
    )
    parts, at = [], 0
    for (start, end), name in cuts:
        if start < at:
            continue
        parts.append(command[at:start].replace("{", "{{").replace("}", "}}"))
        parts.append("{" + name + "}")
        at = end
    parts.append(command[at:].replace("{", "{{").replace("}", "}}"))
    return "".join(parts)


def _by_name(step: PlannedStep) -> tuple[str, ByRoleName] | None:
    """The one argument of a step located by a name parameter, with its key."""
    found = [(k, v) for k, v in step.arguments.items() if isinstance(v, ByRoleName)]
    return found[0] if len(found) == 1 and len(step.targets) == 1 else None


def _not_taken(calls: list[Call], reason: str) -> list[str]:
    """The line that names the actions of the run the skill does not do, with why."""
    actions = [c.name for c in calls if c.name in ACTIONS]
    if not actions:
        return []
    listed = ", ".join(actions)
    return [
        f"{len(actions)} action{'s' if len(actions) > 1 else ''} from where the skill ends "
        f"({listed}): {reason}; the skill is partial and is never routed"
    ]
