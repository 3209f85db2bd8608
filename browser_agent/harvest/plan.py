"""Deciding what of a run can become a skill: which steps, which parameters, where it ends.

Observation-only calls are dropped, failed attempts skipped, every mmid replaced by a
stable selector, and values that came from the command become parameters. The stretch
ends at the first step that needed reasoning over varying page content.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from browser_agent.harvest.elements import (
    ElementRecord,
    Tag,
    element_record,
    find_tags,
    observed_elements,
    tag_for_selector,
)
from browser_agent.harvest.logs import Call, ChatLog
from browser_agent.planner.redact import MASK
from skills.primitive import OBSERVATION_ONLY, PRIMITIVES

OBSERVE = {"get_dom", "get_url", "tell_user"}
# Names a generated module defines or imports; parameters and skills must not shadow them.
RESERVED_NAMES = {"start_url", "said", "Annotated", "Target", "done", "expect", "find", "str"}
RESERVED_NAMES |= set(PRIMITIVES)
SELECTOR_ARGS = ("selector", "text_selector", "click_selector")
VALUE_ARGS = ("text", "option")
# Controls whose accessible name is their label: a label the command happens to say ("sort
# by ...") names the control, it is not a value to pass in.
FIELD_ROLES = frozenset(
    {"combobox", "listbox", "textbox", "searchbox", "spinbutton", "checkbox", "radio", "slider"}
)
ACTIONS = set(PRIMITIVES) - OBSERVATION_ONLY
_ERROR = re.compile(r"^\s*(error|failed|unable|could not)\b", re.IGNORECASE)
_NAVIGATED = re.compile(
    r"(?:navigated to|page loaded:|loaded|now on|url(?: is)?:?)\s+(https?://[^\s'\"<>]+?)[.,;]?(?:\s|$)",
    re.IGNORECASE,
)
_SELECTED = re.compile(r"Selected option '[^']*' \((.+?)\) in ")
_APPEARED = re.compile(r"\bnew elements? appeared|elements? (?:were )?added", re.IGNORECASE)


RUN_ENDED = "the run ended"


class NotHarvestable(ValueError):
    """The log holds nothing worth a skill; the message says why."""


@dataclass
class Param:
    """A skill parameter: a value that came from the command."""

    name: str
    description: str
    example: str


@dataclass
class ByRoleName:
    """A selector whose accessible name is a parameter: ``role=link[name=<param>]``."""

    role: str
    param: Param


@dataclass
class PlannedStep:
    """One primitive call of the skill. Arguments are literals or ``Param`` references."""

    primitive: str
    arguments: dict[str, Any]
    targets: dict[str, ElementRecord] = field(default_factory=dict)
    navigated_to: str | None = None  # path (and query, for the example) after the step
    appeared: bool = False


@dataclass
class SkillPlan:
    """Everything the code generator and the store need for one skill."""

    command: str
    template: str
    params: list[Param]
    steps: list[PlannedStep]
    start_url: str
    end_url: str
    ended_because: str
    source: str
    dropped: list[str] = field(default_factory=list)  # calls the log had that were left out

    @property
    def complete(self) -> bool:
        """True when the skill does the whole command, not just its first stretch; a
        command that asks for information needs reading that no skill does, and a log
        some of whose calls were dropped may have done more than the skill does."""
        if self.dropped:
            return False
        return self.ended_because == RUN_ENDED and not asks_for_information(self.command)


def url_after(response: str) -> str | None:
    """The URL a response says the page went to, if any."""
    match = _NAVIGATED.search(response or "")
    return match.group(1) if match else None


def _relative(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def snake(text: str) -> str:
    """A safe Python identifier made of the words of ``text``."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words[:4]) or "value"
    if name[0].isdigit():
        name = f"value_{name}"
    return f"{name}_" if keyword.iskeyword(name) else name


def _param_name(element: ElementRecord | None, argument: str) -> str:
    if element is None:
        return snake(argument)
    attrs = element.attributes
    if element.role == "searchbox" or attrs.get("name") in {"q", "query", "search"}:
        return "search_term"
    if attrs.get("type") == "password":
        return "password"
    return snake(element.name or attrs.get("name") or attrs.get("placeholder") or argument)


@dataclass
class _Builder:
    """Walks a log's calls and collects the harvestable stretch."""

    log: ChatLog
    steps: list[PlannedStep] = field(default_factory=list)
    params: list[Param] = field(default_factory=list)
    observed: dict[str, tuple[str, str]] = field(default_factory=dict)
    start_url: str = ""
    end_url: str = ""
    ended: str = RUN_ENDED

    def build(self) -> SkillPlan:
        for call in self.log.calls:
            reason = self._take(call)
            if reason:
                self.ended = reason
                break
        actions = [s for s in self.steps if s.primitive != "open_url"]
        if not actions:
            left_out = "".join(f"; {reason}" for reason in self.log.dropped)
            raise NotHarvestable(f"{self.log.path}: no reusable actions ({self.ended}{left_out})")
        return SkillPlan(
            command=self.log.command,
            template=self._template(),
            params=self.params,
            steps=self.steps,
            start_url=self.start_url,
            end_url=self.end_url,
            ended_because=self.ended,
            source=self.log.run_id or self.log.path,
            dropped=list(self.log.dropped),
        )

    def _take(self, call: Call) -> str | None:
        """Add one call to the skill; a non-empty answer says why the skill ends here."""
        if call.response is None:
            return f"the log stops before {call.name} was answered"
        if call.name in OBSERVE:
            if call.name == "get_dom":
                self.observed = observed_elements(call.response)
            return None
        if _ERROR.match(call.response):
            return None  # a failed attempt: the model tried again in a later call
        if call.name == "finish":
            return RUN_ENDED
        if call.name not in ACTIONS:
            return f"{call.name} needs judgement over page content"
        if "__invalid__" in call.arguments:
            return f"{call.name} had arguments that are not JSON"
        if call.name == "open_url":
            return self._open(call)
        if call.name == "bulk_enter_text":
            return self._bulk(call)
        return self._action(call.name, call.arguments, call.response)

    def _action(
        self, name: str, arguments: dict[str, Any], response: str, tag: Tag | None = None
    ) -> str | None:
        """Add one primitive call; ``tag`` names its element when the caller paired it."""
        step = PlannedStep(name, {})
        for key, value in arguments.items():
            if key in SELECTOR_ARGS:
                problem = self._target(step, key, str(value), response, tag)
                if problem:
                    return problem
            else:
                step.arguments[key] = self._value(step, key, value, response)
        navigated = url_after(response)
        if navigated:
            self.end_url = navigated
            step.navigated_to = _relative(navigated)
        step.appeared = bool(_APPEARED.search(response))
        self.steps.append(step)
        if navigated:
            self.observed = {}
        return None

    def _bulk(self, call: Call) -> str | None:
        """A form filled in one call becomes one enter_text step per field, in order."""
        entries = call.arguments.get("entries")
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return "bulk_enter_text had entries that are not a list of fields"
        tags = find_tags(call.response or "")
        for index, entry in enumerate(entries):
            tag = tags[index] if len(tags) == len(entries) else None
            arguments = {"selector": entry.get("selector", ""), "text": entry.get("text", "")}
            problem = self._action("enter_text", arguments, call.response or "", tag)
            if problem:
                return problem
        return None

    def _open(self, call: Call) -> str | None:
        url = str(call.arguments.get("url", ""))
        loaded = url_after(call.response) or url
        if not self.steps:
            self.start_url = loaded
            self.steps.append(PlannedStep("open_url", {"url": Param("start_url", "", loaded)}))
        else:
            self.steps.append(PlannedStep("open_url", {"url": self._value(None, "url", loaded)}))
        self.end_url = loaded
        self.observed = {}
        return None

    def _target(
        self, step: PlannedStep, key: str, selector: str, response: str, tag: Tag | None
    ) -> str | None:
        tag = tag or tag_for_selector(response, selector)
        mmid = re.search(r"mmid\s*=\s*['\"]?(\d+)", selector)
        if tag is None:
            if mmid:
                return f"the element {selector} of {step.primitive} is not described in the log"
            step.arguments[key] = selector  # the model wrote a selector of its own
            return None
        role, name = self.observed.get(mmid.group(1), (None, None)) if mmid else (None, None)
        record = element_record(tag, role, name)
        if record is None:
            return f"the element of {step.primitive} has nothing stable to find it by"
        named = _in_command(record.name, self.log)
        if record.selector.startswith("role=link") and not named:
            return f"clicking the link {record.name!r} was a choice among page content"
        if record.selector.startswith("role=") and named and record.role not in FIELD_ROLES:
            param = self._param(snake(f"{record.role} name"), f"Name of the {record.role}", named)
            step.arguments[key] = ByRoleName(record.role, param)
        step.targets[key] = record
        step.arguments.setdefault(key, record.selector)
        return None

    def _value(self, step: PlannedStep | None, key: str, value: Any, response: str = "") -> Any:
        """A literal, or a parameter when the value came from the command."""
        if not isinstance(value, str) or key not in (*VALUE_ARGS, "url"):
            return value
        element = next(iter(step.targets.values()), None) if step else None
        if value == MASK:
            return self._param("password", "The password (never stored)", "")
        candidates = [value]
        chosen = _SELECTED.search(response) if key == "option" else None
        if chosen:
            candidates.append(chosen.group(1))  # the option's label, as the command says it
        for candidate in candidates:
            said = _in_command(candidate, self.log)
            if said:
                label = key
                if element is not None:
                    attrs = element.attributes
                    label = element.name or attrs.get("placeholder") or attrs.get("name") or key
                name = _param_name(element, key)
                return self._param(name, f"{label} (example: {said})", said)
        return value

    def _param(self, name: str, description: str, example: str) -> Param:
        for existing in self.params:
            if existing.example == example and existing.name.startswith(name):
                return existing
        taken = {p.name for p in self.params} | RESERVED_NAMES
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name}_{n}", n + 1
        param = Param(unique, description, example)
        self.params.append(param)
        return param

    def _template(self) -> str:
        template = self.log.command.replace("{", "{{").replace("}", "}}")
        for param in sorted(self.params, key=lambda p: len(p.example), reverse=True):
            example = MASK if param.name.startswith("password") else param.example
            if not example:
                continue
            pattern = re.compile(re.escape(example), re.IGNORECASE)
            template = pattern.sub("{" + param.name + "}", template, count=1)
        return template


_QUESTION = re.compile(
    r"^\s*(what|how|which|who|whom|when|where|why|is|are|does|do|did|can|tell me|read|"
    r"check whether|find out)\b|\?\s*$|\b(tell me|let me know)\b",
    re.IGNORECASE,
)


def asks_for_information(command: str) -> bool:
    """Whether the command wants an answer read off the page, not only actions."""
    return bool(_QUESTION.search(command))


def _in_command(value: str, log: ChatLog) -> str | None:
    """The words of the command that say ``value`` (case and punctuation aside), if any."""
    words = re.findall(r"\w+", value)
    if not words:
        return None
    pattern = r"(?<!\w)" + r"\W*".join(re.escape(w) for w in words) + r"(?!\w)"
    trailing = re.search(r"[^\w\s]+$", value.strip())
    if trailing:  # "Where is my order?" keeps its question mark when the command has it
        pattern += f"(?:{re.escape(trailing.group())})?"
    match = re.search(pattern, log.command, re.IGNORECASE)
    return match.group(0) if match else None


def plan_skill(log: ChatLog) -> SkillPlan:
    """The harvestable stretch of a successful run, or NotHarvestable saying why not."""
    if not log.succeeded:
        raise NotHarvestable(f"{log.path}: the run did not succeed")
    if not log.calls:
        raise NotHarvestable(f"{log.path}: the run made no tool calls")
    return _Builder(log).build()
