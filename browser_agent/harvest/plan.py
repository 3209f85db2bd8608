"""Deciding what of a run can become a skill: which steps, which parameters, where it ends.

Observation-only calls are dropped, failed attempts skipped, every mmid replaced by a
stable selector, and values that came from the command become parameters. The stretch
ends at the first step that needed reasoning over varying page content.
"""

from __future__ import annotations

import keyword
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from browser_agent.browser.dialogs import ANSWERED
from browser_agent.browser.effects import SENT_DATA
from browser_agent.errors import BrowserAgentError
from browser_agent.harvest.calls import Call, ChatLog
from browser_agent.harvest.elements import (
    ElementRecord,
    Tag,
    disabled_elements,
    element_record,
    find_tags,
    looks_generated,
    observed_elements,
    tag_for_selector,
    toggle_elements,
)
from browser_agent.secrets import MASK, PLACEHOLDER
from browser_agent.sites.request_tokens import refused_url
from browser_agent.skills.fresh import TYPING
from browser_agent.skills.primitive import NOT_REPLAYABLE, OBSERVATION_ONLY, PRIMITIVES
from browser_agent.skills.selectors import ANY_ROLE, CLOSE_MARKS, text_selector

OBSERVE = {"get_dom", "find_elements", "get_url", "tell_user"}
# Names a generated module defines or imports; parameters and skills must not shadow them.
RESERVED_NAMES = {"start_url", "said", "Annotated", "Target", "done", "expect", "find", "str"}
RESERVED_NAMES |= {"answering_dialogs", "quote", "urljoin"}
RESERVED_NAMES |= set(PRIMITIVES)
SELECTOR_ARGS = ("selector", "text_selector", "click_selector")
VALUE_ARGS = ("text", "option")
# Controls whose accessible name is their label: a label the command happens to say ("sort
# by ...") names the control, it is not a value to pass in. The name of any other control
# (a button, link, tab, checkbox or radio label) is the choice itself: a parameter.
FIELD_ROLES = frozenset({"combobox", "listbox", "textbox", "searchbox", "spinbutton", "slider"})
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
# Roles whose elements a person ticks: several may be asked for at once, so their names
# are always a list parameter.
TICK_ROLES = frozenset({"checkbox", "switch", "menuitemcheckbox"})
# Tags a generic clickable element (one the page made clickable with a script) has; the
# page library names them by tag, with no ARIA role.
GENERIC_TAGS = frozenset(
    {"span", "div", "li", "p", "td", "th", "i", "b", "em", "strong", "small", "font", "dd",
     "dt", "section", "article", "header", "footer", "label", "svg", "use", "path", "g"}
)  # fmt: skip
# Where a clause of the command starts: a name said there is its verb ("Close the dialog").
_CLAUSE_START = re.compile(r"(?:^|[.;:!?]\s+|\bthen\s+)$", re.IGNORECASE)
_LIST_GAP = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+|;\s*)$", re.IGNORECASE)
_PATH_GAP = re.compile(r"^\s*>\s*$")
_LETTER_CASE = re.compile(r"\b(upper|lower)(?=[\s-]*case\b)", re.IGNORECASE)
_ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth",
)  # fmt: skip
_ORDINAL = re.compile(
    r"\b(?:(?P<n>\d+)(?:st|nd|rd|th)|(?P<w>" + "|".join(_ORDINAL_WORDS) + r"))\b", re.I
)
ACTIONS = set(PRIMITIVES) - OBSERVATION_ONLY
_ERROR = re.compile(r"^\s*(error|failed|unable|could not)\b", re.IGNORECASE)
_NAVIGATED = re.compile(
    r"(?:navigated to|page loaded:|loaded|now on|url(?: is)?:?)\s+(https?://[^\s'\"<>]+?)[.,;]?(?:\s|$)",
    re.IGNORECASE,
)
_TEXT_ROLES = frozenset({"text", "h1", "h2", "h3", "h4", "h5", "h6"})
_SELECTED = re.compile(r"Selected option '[^']*' \((.+?)\) in ")
_APPEARED = re.compile(r"\bnew elements? appeared|elements? (?:were )?added", re.IGNORECASE)


RUN_ENDED = "the run ended"


class NotHarvestable(BrowserAgentError, ValueError):
    """The log holds nothing worth a skill; the message says why."""


@dataclass
class Param:
    """A skill parameter: a value that came from the command.

    ``kind`` is its type: ``str``, ``int``, ``list`` (of str, said "a, b and c"), ``path``
    (menu items said "a>b>c") or ``ordinal`` ("3rd"). ``example`` is the value the skill
    is replayed with; ``said`` the words of the command it stands for in the template.
    """

    name: str
    description: str
    example: Any
    kind: str = "str"
    said: str = ""

    def __post_init__(self) -> None:
        if not self.said and isinstance(self.example, str):
            self.said = self.example


@dataclass
class ByRoleName:
    """A selector whose accessible name is a parameter: ``role=link[name=<param>]``; for a
    list or path parameter, the step runs once per item. ``before`` and ``after`` are
    the words the site writes around the value ("Milestone " of "Milestone Sprint 4")."""

    role: str
    param: Param
    before: str = ""
    after: str = ""


@dataclass
class NthOfRole:
    """A selector by position among the visible elements of a role: "the 3rd checkbox"."""

    role: str
    param: Param


@dataclass
class Cased:
    """Typed text in the letter case the command asks for ("in all upper case letters"):
    ``case`` is a parameter, or a literal "upper" or "lower"."""

    param: Param
    case: Param | str


@dataclass
class BuiltUrl:
    """An address holding values of the command (``/ticket/9`` for "ticket #9"): the
    literal pieces as the run opened them, and the parameters, URL-quoted when built."""

    parts: list[str | Param]


@dataclass
class PlannedStep:
    """One primitive call of the skill. Arguments are literals or ``Param`` references."""

    primitive: str
    arguments: dict[str, Any]
    targets: dict[str, ElementRecord] = field(default_factory=dict)
    navigated_to: str | None = None  # path (and query, for the example) after the step
    # The page it went to is named by a value of the command or one the app made (a new
    # record's number): the path differs on every instance, only the move is checked.
    path_varies: bool = False
    appeared: bool = False
    checked: bool = False  # the step ticked a checkbox or chose a radio button
    accept_dialogs: bool | None = None  # a dialog that asked was accepted (True) or dismissed
    # Where a button's click went, sending nothing to the site (a form sent by GET), built
    # from the command's values: opened instead when the button is no longer found.
    address: BuiltUrl | None = None
    # A reading of the step the log alone cannot prove ("the link 'Log In' is a fixed
    # control of the site"): a replay on fresh values bears it out or refutes it.
    speculated: str = ""


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
    # The run's actions from where the skill ends on, said as one line: not in the skill.
    left_out: list[str] = field(default_factory=list)
    # The part of the command the skill does not do, in the command's words ("" when it
    # does all of it), and the template of the part it does.
    lacks: str = ""
    done_template: str = ""
    # Calls that failed and were tried again in a later call: not steps of the skill.
    failed: list[str] = field(default_factory=list)
    note: str = ""  # a line for the module's header (a healed version names its healed steps)
    # The run's last address built from the command's values, when the run reached it
    # sending nothing to the site (a search's results): opened when the steps no longer fit.
    end_address: BuiltUrl | None = None
    # For a parameter naming an element: other names the page listed beside it, to replay
    # the skill on values the site itself offers (see harvest.replay). Not stored.
    listed: dict[str, list[str]] = field(default_factory=dict)

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


def _param_name(element: ElementRecord | None, argument: str, near: str = "") -> str:
    """A parameter named for what the field is: the name its label or aria-label gives
    (before any help text), else its id, name or placeholder, else the command's words
    before the value, else the kind of value."""
    if element is None:
        return near or snake(argument)
    attrs = element.attributes
    if element.role == "searchbox" or attrs.get("name") in {"q", "query", "search"}:
        return "search_term"
    if attrs.get("type") == "password":
        return "password"
    for label in (element.name, element.context.get("label"), attrs.get("aria-label")):
        named = _label_name(label or "")
        if named:
            return named
    for attribute in ("id", "name"):
        named = _attribute_name(attrs.get(attribute, ""))
        if named:
            return named
    return _label_name(attrs.get("placeholder", "")) or near or snake(argument)


# Words a label adds that say nothing of what the value is.
_BOILERPLATE = re.compile(r"\((?:[^)]*)\)|\b(?:required|optional|mandatory)\b|[*]", re.I)
# Prefixes markup gives field ids and names ("field-summary", "input_email").
_MARKUP_WORDS = frozenset({"field", "fields", "input", "txt", "fld", "frm", "form", "id"})


def _label_name(label: str) -> str:
    """The name a field's label gives it: its words before a colon, boilerplate dropped;
    empty when the label is a sentence of help ("You may use WikiFormatting here.")."""
    head = _BOILERPLATE.sub(" ", label.split(":")[0]).strip()
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", head)
    if not words or len(words) > 3 or head.endswith((".", "!", "?")):
        return ""
    return snake(" ".join(words))


def _attribute_name(value: str) -> str:
    """A name from a field's id or name attribute, without markup prefixes (``field-``);
    of a long one its last word, what the field holds (``action_reassign_reassign_owner``
    gives ``owner``); empty when it holds index numbers (``fields[multi_edit][0][2]``),
    looks generated or is too short to say anything."""
    if not value or looks_generated(value):
        return ""
    words = [w for w in re.findall(r"[a-z]+", value.lower()) if w not in _MARKUP_WORDS]
    words = words[-1:] if len(words) > 3 else words
    if not words or re.search(r"\d", value) or len("".join(words)) < 3:
        return ""  # "tt" or "f2" says nothing
    return snake(" ".join(words))


@dataclass
class _Builder:
    """Walks a log's calls and collects the harvestable stretch."""

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
    hrefs: dict[str, str] = field(default_factory=dict)  # mmid -> address, last observed

    def build(self) -> SkillPlan:
        left_out: list[str] = []
        for index, call in enumerate(self.log.calls):
            self.at = index
            reason = self._take(call)
            if reason is None and call.name in ACTIONS and _ERROR.match(call.response or ""):
                self.failed.append(
                    f"call {index + 1} ({call.name}) left out: it failed and the run went on "
                    f"without it ({call.response.strip()[:120]})"
                )
            if reason:
                self.ended = reason
                left_out = _not_taken(self.log.calls[index:], reason)
                break
        self._group_lists()
        self._keep_labels_literal()
        for step in self.steps:
            step.path_varies = step.navigated_to is not None and _path_varies(
                step.navigated_to, self.params
            )
        actions = [s for s in self.steps if s.primitive != "open_url"]
        if not actions:
            left_out = "".join(f"; {reason}" for reason in self.log.dropped)
            raise NotHarvestable(f"{self.log.path}: no reusable actions ({self.ended}{left_out})")
        lacks, done_upto = "", len(self.log.command)
        if left_out or self.log.dropped or asks_for_information(self.log.command):
            lacks, done_upto = self._lacks()
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
            left_out=left_out,
            lacks=lacks,
            done_template=self._template(done_upto),
            failed=self.failed,
            end_address=self._end_address(),
            listed=self.listed,
        )

    def _went_by_get(self, step: PlannedStep, url: str, response: str) -> BuiltUrl | None:
        """The address a button's click went to, built from values the skill already
        takes, when the click sent nothing to the site (as a log says, see _says_sent); a
        link finds its own address again when relabelled (see skills.runtime)."""
        roles = {target.role for target in step.targets.values()}
        if step.primitive != "click" or roles != {"button"} or not _says_sent(self.log):
            return None
        if SENT_DATA in response:
            return None
        return self._address_of(url)

    def _address_of(self, url: str) -> BuiltUrl | None:
        """``url`` built from the command's values the skill already takes (literal where
        it holds none); None when it holds a value no step took."""
        kept = (list(self.params), dict(self.spans), dict(self.in_address))
        built = self._url(url)
        self.params[:], self.spans, self.in_address = kept  # building it adds nothing
        if isinstance(built, str):
            return BuiltUrl([built])
        known = {id(p) for p in self.params}
        return built if all(id(p) in known for p in _params_in(built)) else None

    def _end_address(self) -> BuiltUrl | None:
        """The address the run ended on, built from the command's values, when a step typed
        them, the address holds every one of them, and no step sent data to the site (a
        search's results page, a filtered table: a plain GET gives the same page). Only
        logs that say what a step sent count (see _says_sent); None for others."""
        if self.ended != RUN_ENDED or not _says_sent(self.log) or not self.end_url:
            return None
        if any(SENT_DATA in (call.response or "") for call in self.log.calls):
            return None
        typed = {
            p.name
            for step in self.steps
            if step.primitive in TYPING
            for p in _params_in(step.arguments.get("text"))
        }
        built = self._address_of(self.end_url)
        if not typed or built is None:
            return None
        if {p.name for p in _params_in(built)} != {p.name for p in self.params}:
            return None  # a value the address does not hold
        return built

    def _keep_labels_literal(self) -> None:
        """An address value that is the word naming the command's next value ("category"
        of `add the category "Trees"`, opened as ``?taxonomy=category``) is the kind of
        thing, not a value: it stays literal, or the template would be two parameters
        with nothing between them and no command could be routed to it."""
        used: dict[bool, set[str]] = {True: set(), False: set()}  # in an address or not
        for step in self.steps:
            for value in [*step.arguments.values(), step.address]:
                used[isinstance(value, BuiltUrl)] |= {p.name for p in _params_in(value)}
        starts = sorted(span[0] for span in self.spans.values())
        labels = set()
        for name in (used[True] - used[False]) & self.spans.keys():
            end = self.spans[name][1]
            following = next((start for start in starts if start >= end), None)
            if following is not None and _NAMING_GAP.fullmatch(self.log.command[end:following]):
                labels.add(name)
        if not labels:
            return

        def literal(value: BuiltUrl) -> list[str | Param]:
            return [
                self.in_address[p.name] if isinstance(p, Param) and p.name in labels else p
                for p in value.parts
            ]

        for step in self.steps:
            for key, value in step.arguments.items():
                if isinstance(value, BuiltUrl):
                    step.arguments[key] = _built_or_plain(literal(value))
            if step.address is not None:
                step.address = BuiltUrl(literal(step.address))
        self.params = [p for p in self.params if p.name not in labels]
        for name in labels:
            self.spans.pop(name, None)

    def _lacks(self) -> tuple[str, int]:
        """The clauses of the command past the last one a step of the skill covers (by a
        value it takes), in the command's words, and where they start; when every clause
        is covered, what the skill leaves to do after its last step."""
        command = self.log.command
        ends = [
            span[1] for name, span in self.spans.items() if any(p.name == name for p in self.params)
        ]
        covered = max(ends, default=0)
        for cut in _CLAUSE_BREAK.finditer(command):
            if cut.start() >= covered:
                rest = command[cut.end() :].strip(" .")
                if rest:
                    return rest, cut.start()
        if asks_for_information(command) and not self.log.dropped:
            return "read the answer off the page", len(command)
        return "the steps its run took after its last one", len(command)

    def _take(self, call: Call) -> str | None:
        """Add one call to the skill; a non-empty answer says why the skill ends here."""
        if call.response is None:
            return f"the log stops before {call.name} was answered"
        if call.name in OBSERVE:
            if call.name == "get_dom":
                self.observed = observed_elements(call.response)
                self.hrefs = dict(_HREF.findall(call.response))
                self.disabled = disabled_elements(call.response)
                self.toggles = toggle_elements(call.response)
                self.page_texts |= {_plain(name) for _role, name in self.observed.values()}
            elif call.name == "find_elements":  # a few more elements of the same page
                found = observed_elements(call.response)
                self.observed |= found
                self.page_texts |= {_plain(name) for _role, name in found.values()}
            return None
        if _ERROR.match(call.response):
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
            return self._open(call)
        if call.name == "bulk_enter_text":
            return self._bulk(call)
        return self._action(call.name, call.arguments, call.response)

    def _action(
        self, name: str, arguments: dict[str, Any], response: str, tag: Tag | None = None
    ) -> str | None:
        """Add one primitive call; ``tag`` names its element when the caller paired it."""
        typed = arguments.get("text")
        if isinstance(typed, str) and typed != MASK and self._read_off_page(typed):
            return f"the text {typed!r} it typed was read off the page, not said in the command"
        if isinstance(typed, str) and (said := _contradicted(typed, self.log.command)):
            return (
                f"the text {typed!r} it typed is not the command's {said!r} (a value corrected "
                "during the run): teach it again with a command that says what was typed"
            )
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
            step.address = self._went_by_get(step, navigated, response)
        step.appeared = bool(_APPEARED.search(response))
        answered = ANSWERED.findall(response)
        if answered:
            step.accept_dialogs = answered[-1][1] == "accepted"
        step.checked = name == "click" and any(
            t.role in (*TICK_ROLES, "radio") for t in step.targets.values()
        )
        self.steps.append(step)
        if navigated:
            self.observed, self.disabled = {}, set()
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
        if refused := refused_url(loaded, not self.steps, self.log.command):
            return refused
        if not self.steps:  # the site's address, or a page of it the command names
            # the address asked for, when the site only moved it on within itself (its
            # front page to /index.php/Main_Page): the one a command is given to start from
            asked = url if urlsplit(url).netloc == urlsplit(loaded).netloc else loaded
            self.quoted_only = True  # the page a run starts on is named by a quoted value
            built = self._url(asked)
            self.quoted_only = False
            self.start_url = asked
            start = built if isinstance(built, BuiltUrl) else Param("start_url", "", asked)
            self.steps.append(PlannedStep("open_url", {"url": start}))
        else:
            url = self._url(loaded)
            self.steps.append(PlannedStep("open_url", {"url": url}))
        self.end_url = loaded
        self.observed, self.disabled = {}, set()
        return None

    def _url(self, url: str) -> str | BuiltUrl:
        """The address a step opened, with each path segment (past the first, which names
        the app's section) or query value the command says as a parameter."""
        parts = urlsplit(url)
        pieces: list[str | Param] = [f"{parts.scheme}://{parts.netloc}"]
        segments = parts.path.split("/")
        for index, segment in enumerate(segments):
            if index:
                pieces.append("/")
            pieces.append(self._url_value(unquote(segment), segment, index > 1, segments[:index]))
        if parts.query:
            pieces.append("?")
            for index, pair in enumerate(parts.query.split("&")):
                key, equals, value = pair.partition("=")
                pieces.append(("&" if index else "") + key + equals)
                if value:
                    plain = unquote(value.replace("+", " "))
                    pieces.append(self._url_value(plain, value, True, [key]))
        if parts.fragment:
            pieces.append(f"#{parts.fragment}")
        if not any(isinstance(p, Param) for p in pieces):
            return url
        return _built_or_plain(pieces)

    def _url_value(self, value: str, raw: str, deep: bool, before: list[str]) -> str | Param:
        """A parameter for a piece of an address the command says (``9`` of "ticket #9"),
        else the piece as it was."""
        said = _said(value, self.log.command) if value and deep else None
        if said is None or self.quoted_only and not _within_quotes(self.log.command, said):
            return raw
        near = _near_words(self.log.command, said.start())
        key = next((b for b in reversed(before) if b), "")  # the query key, or the segment
        search = "search_term" if key.lower() in {"q", "query", "search"} else ""
        name = near or search or _attribute_name(key) or "value"
        description = f"{name.replace('_', ' ')} in the address (example: {value})"
        param = self._param(name, description, said.group(0), "str", said)
        self.in_address[param.name] = raw
        return param

    def _target(
        self, step: PlannedStep, key: str, selector: str, response: str, tag: Tag | None
    ) -> str | None:
        tag = tag or tag_for_selector(response, selector)
        mmid = re.search(r"mmid\s*=\s*['\"]?(\d+)", selector)
        if tag is None:
            if mmid:
                return f"the element {selector} of {step.primitive} is not described in the log"
            # The model wrote a selector of its own: guarded too (exactly one visible element),
            # though nothing says which role and name it had.
            step.targets[key] = ElementRecord(selector=selector, role=ANY_ROLE, name="", tag="")
            step.arguments[key] = selector
            return None
        role, name = self.observed.get(mmid.group(1), (None, None)) if mmid else (None, None)
        record = element_record(tag, role, name)
        if record is None and mmid:
            record = self._by_label_before(mmid.group(1), tag, role)
        if record is None:
            return f"the element of {step.primitive} has nothing stable to find it by"
        if record.role in GENERIC_TAGS:  # a span or div a script made clickable
            record.role = ""
            if record.selector.startswith("role="):
                record.selector = text_selector(record.tag, record.name)
        said = self._said_name(record)
        named = said is not None and said.group(0) in self.named
        if named:
            said = None  # a fixed control the command names: its name stays literal
        kind = record.role or "element"
        counted = mmid and said is None and not named
        position = self._position(mmid.group(1), record.role) if counted else None
        if named:
            pass  # replays showed the command names this very control
        elif said is None and position is None and self._one_of_several(mmid, record):
            around = self._named_around(record)
            if around is None:
                return f"choosing the {kind} {record.name!r} was a choice among page content"
            param, before, after = around
            step.arguments[key] = ByRoleName(record.role, param, before, after)
            step.speculated = (
                f"the {kind} {record.name!r} read as named by {param.name} with the site's "
                f"words {(before + '…' + after).strip()!r} around it"
            )
        elif said is None and position is None and record.role in NAVIGATION_ROLES:
            step.speculated = f"the {kind} {record.name!r} read as a fixed control of the site"
        if said is not None and record.role not in FIELD_ROLES:
            plural = record.role in TICK_ROLES
            noun = snake(f"{kind} names" if plural else f"{kind} name")
            description = f"Name{'s' if plural else ''} of the {kind}{'es' if plural else ''}"
            value = [said.group(0)] if plural else said.group(0)
            param = self._param(noun, description, value, "list" if plural else "str", said)
            step.arguments[key] = ByRoleName(record.role, param)
            if mmid and not plural and param.name not in self.listed:
                self.listed[param.name] = self._listed_beside(mmid.group(1), record, param)
        elif position is not None:
            param = self._param(
                "position",
                f"Which {kind} counting from the top (1st, 2nd, 3rd...)",
                position.group(0),
                "ordinal",
                position,
            )
            step.arguments[key] = NthOfRole(record.role, param)
        record.context = {**record.context, **(self._context(mmid.group(1)) if mmid else {})}
        if mmid and not self._apart_from_toggles(step, mmid.group(1), record):
            self._scope_to_form(step, mmid.group(1), record)
        step.targets[key] = record
        step.arguments.setdefault(key, record.selector)
        return None

    def _apart_from_toggles(self, step: PlannedStep, mmid: str, record: ElementRecord) -> bool:
        """A button named like a toggle the page also shows (a "Publish" that opens the
        panel holding the "Publish" that publishes) is found as the one that toggles
        nothing, and the toggle as the one that does. False when the page's same-named
        buttons are not told apart so."""
        if step.primitive != "click" or record.role != "button" or mmid not in self.observed:
            return False
        seen, toggle = self.observed[mmid], mmid in self.toggles
        others = [key for key, same in self.observed.items() if same == seen and key != mmid]
        if not others or any((key in self.toggles) == toggle for key in others):
            return False
        if not record.selector.startswith("role="):
            return False
        if toggle:
            state = "true" if self.toggles[mmid] else "false"
            record.selector = f"{record.selector}[expanded={state}]"
        elif record.tag:
            record.selector = text_selector(f"{record.tag}:not([aria-expanded])", record.name)
        else:
            return False
        return True

    def _scope_to_form(self, step: PlannedStep, mmid: str, record: ElementRecord) -> bool:
        """A button the page shows several times ("Go" under each form) is found within
        the form of the field the run filled just before it on this page, never by page
        order; the scope is kept in the record's context. False when it is not needed or
        no such field is known."""
        if step.primitive != "click" or record.role != "button" or mmid not in self.observed:
            return False
        if sum(1 for seen in self.observed.values() if seen == self.observed[mmid]) < 2:
            return False
        field_selector = self._field_before()
        if field_selector is None:
            return False
        record.selector = f"form:has({field_selector}) >> {record.selector}"
        record.context["form_of"] = field_selector
        return True

    def _field_before(self) -> str | None:
        """The CSS selector of the last field filled on the current page, if any."""
        for earlier in reversed(self.steps):
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

    def _by_label_before(self, mmid: str, tag: Tag, role: str | None) -> ElementRecord | None:
        """A field with no name or id of its own, found by the text just before it ("Genre"
        then an unlabelled box), as a person reads a form."""
        if role not in FIELD_ROLES or mmid not in self.observed:
            return None
        lines = list(self.observed.items())
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

    def _one_of_several(self, mmid: re.Match[str] | None, record: ElementRecord) -> bool:
        """Whether the element is one choice among several the page offered: a link, box,
        option or tab; or an element with no role among others of its tag (suggestions,
        tree nodes), not the lone "Submit" a page drew as a div."""
        if record.role in CHOICE_ROLES:
            if record.role in ("radio", "checkbox") and self._enables_next_field():
                return False
            return not (mmid is not None and self._fixed_part(mmid.group(1), record))
        if record.role or mmid is None or mmid.group(1) not in self.observed:
            return False
        tag = self.observed[mmid.group(1)][0]
        return sum(1 for role, _name in self.observed.values() if role == tag) > 1

    def _fixed_part(self, mmid: str, record: ElementRecord) -> bool:
        """Whether a link or tab the command does not name may be a fixed part of the
        application's own UI ("Log In", "Edit this page", "New Ticket"), not one result
        among many: named (several of one name are told apart by the text near the one
        taken and its place among them, see skills.runtime), holding no value of the
        command (nor a number: a day, a count) in its name, and the command picks nothing
        by position ("the third page": then it was picked as one of several); the address
        it leads to may hold a value ("Edit this page" of the page named). The log cannot prove
        it: the step is kept as speculated, and a replay on fresh values bears the reading
        out or refutes it (see harvest.replay)."""
        if record.role not in NAVIGATION_ROLES or mmid not in self.observed:
            return False
        if not record.name:
            return False
        if _ORDINAL.search(self.log.command):  # "the third page": a position picks it
            return False
        return not (_NUMBER_LIKE.fullmatch(record.name) or self._holds_a_value(record.name))

    def _enables_next_field(self) -> bool:
        """Whether the next action types a value the command says into a field that was
        disabled when last observed: choosing this radio or box is the step of the form
        that opens the field for the command's value, not a choice among page content."""
        for call in self.log.calls[self.at + 1 :]:
            if call.name in OBSERVE:
                continue
            target = re.search(r"mmid\s*=\s*['\"]?(\d+)", str(call.arguments.get("selector", "")))
            text = call.arguments.get("text")
            return (
                call.name == "enter_text"
                and target is not None
                and target.group(1) in self.disabled
                and isinstance(text, str)
                and _said(text, self.log.command) is not None
            )
        return False

    def _holds_a_value(self, *texts: str, params: list[Param] | None = None) -> bool:
        """Whether any of the texts holds a word of a value the command gave so far (a
        result named like the search term was picked by matching it), or of ``params``."""
        said = {
            w.casefold()
            for p in (self.params if params is None else params)
            for item in _items(p)
            for w in re.findall(r"\w{2,}", item)
        }
        return any(w.casefold() in said for text in texts for w in re.findall(r"\w{2,}", text))

    def _said_name(self, record: ElementRecord) -> re.Match[str] | None:
        """Where the command names this element, unless only its first word (a verb: "Close
        the dialog") does; an "x" names a close button."""
        names = [record.name]
        if record.role == "button" and record.name.strip().lower() in ("close", "dismiss"):
            names += CLOSE_MARKS
        for name in names:
            said = _said(name, self.log.command, whole=len(name) == 1)
            if said and not _CLAUSE_START.search(self.log.command[: said.start()]):
                return said
        return None

    def _position(self, mmid: str, role: str) -> re.Match[str] | None:
        """The ordinal in the command ("3rd") that counts the element among the visible
        elements of its role, as last observed; None when no ordinal says its position."""
        same = [key for key, (seen_role, _name) in self.observed.items() if seen_role == role]
        if mmid not in same:
            return None
        for match in _ORDINAL.finditer(self.log.command):
            if _ordinal_value(match) == same.index(mmid) + 1:
                return match
        return None

    def _context(self, mmid: str) -> dict[str, Any]:
        """What tells the element from others of its role and name: the nearest heading or
        text before it, and its place among its equals, as last observed."""
        if mmid not in self.observed:
            return {}
        lines = list(self.observed.items())
        index = [key for key, _seen in lines].index(mmid)
        heading = next(
            (
                name
                for _key, (role, name) in reversed(lines[:index])
                if role in _TEXT_ROLES and name
            ),
            "",
        )
        equals = [key for key, seen in lines if seen == self.observed[mmid]]
        return {"heading": heading[:120], "index": equals.index(mmid)}

    def _named_around(self, record: ElementRecord) -> tuple[Param, str, str] | None:
        """A link or button whose name is one of the command's values with a few words of
        the site's around it ("Milestone Sprint 4" for the milestone "Sprint 4", typed
        into a search or quoted): the parameter and the words before and after it. None
        when no value is in the name, or the rest holds a number or more than three words
        (one result among many, not the thing the command names)."""
        quoted = [(v, None) for v in _quoted_values(self.log.command)]
        known = [(p.example, p) for p in self.params if p.kind == "str"]
        for value, param in [*known, *quoted]:
            if not isinstance(value, str) or not value.strip():
                continue
            found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", record.name, re.I)
            if found is None:  # whole words only: "Sa" is not in "San Marino"
                continue
            before, after = record.name[: found.start()], record.name[found.end() :]
            rest = f"{before} {after}".split()
            if not rest or len(rest) > 3 or re.search(r"\d", f"{before}{after}"):
                continue
            if param is None:
                said = _said(value, self.log.command)
                if said is None:
                    continue
                kind = record.role or "element"
                param = self._param(snake(f"{kind} name"), f"Name of the {kind}", value, said=said)
            return param, before, after
        return None

    def _listed_beside(self, mmid: str, record: ElementRecord, param: Param) -> list[str]:
        """Other names of the element's role the page listed beside it, with nothing but
        text between them and no heading (a page's other pages, a list's other items, a
        table's other columns), each shown
        once, leading to an address of the same shape (the same path and query keys, the
        values aside), of the kind of the example (a number for a number) and holding no
        other value of the command: values the site itself offers for ``param``, the three
        nearest it."""
        lines = list(self.observed.values())
        index = list(self.observed).index(mmid)

        def apart(i: int) -> bool:  # a heading or another kind of control ends the list
            role = lines[i][0]
            return _heading(role) or role not in (record.role, "text", "")

        start = next((i + 1 for i in range(index - 1, -1, -1) if apart(i)), 0)
        end = next((i for i in range(index + 1, len(lines)) if apart(i)), None)
        counts = Counter(name for role, name in lines if role == record.role)
        others = [p for p in self.params if p is not param]
        numeric = record.name.strip().isdigit()
        keys = list(self.observed)
        shape = _address_shape(self.hrefs.get(mmid, ""))
        near = sorted(
            range(start, len(lines) if end is None else end), key=lambda i: abs(i - index)
        )
        return [
            name
            for key, (role, name) in ((keys[i], lines[i]) for i in near)
            if role == record.role
            and _address_shape(self.hrefs.get(key, "")) == shape
            and name.strip()
            and name != record.name
            and counts[name] == 1
            and name.strip().isdigit() == numeric
            and not self._holds_a_value(name, params=others)
        ][:3]

    def _read_off_page(self, typed: str) -> bool:
        """Typed text the command does not say but an observed page showed: it was read."""
        return _said(typed, self.log.command) is None and _plain(typed) in self.page_texts

    def _value(self, step: PlannedStep | None, key: str, value: Any, response: str = "") -> Any:
        """A literal, or a parameter when the value came from the command (typed text keeps
        the letter case the command asks for, a number field's value is an int)."""
        if not isinstance(value, str) or key not in (*VALUE_ARGS, "url"):
            return value
        element = next(iter(step.targets.values()), None) if step else None
        if value == MASK:  # the command names it masked, if at all
            masked = re.search(re.escape(MASK), self.log.command)
            return self._param("password", "The password (never stored)", "", "str", masked)
        candidates = [value]
        chosen = _SELECTED.search(response) if key == "option" else None
        if chosen:
            candidates.append(chosen.group(1))  # the option's label, as the command says it
        if key == "text" and step is not None and _said(value, self.log.command) is None:
            added = self._added(value)
            if added is not None:  # typed after what the field held: the value is added
                step.arguments["append"] = True
                candidates = [added]
        for candidate in candidates:
            said = _said(candidate, self.log.command)
            if said is None:
                continue
            label = key
            if element is not None:
                attrs = element.attributes
                label = (
                    element.name
                    or element.context.get("label")
                    or attrs.get("placeholder")
                    or attrs.get("name")
                    or key
                )
            name = _param_name(element, key, _near_words(self.log.command, said.start()))
            description = f"{label} (example: {said.group(0)})"
            if PLACEHOLDER.fullmatch(said.group(0)):
                description = f"{label}: a secret, as its placeholder (example: {said.group(0)})"
            number = element is not None and element.attributes.get("type") == "number"
            if number and re.fullmatch(r"-?\d+", said.group(0)):
                return self._param(name, description, int(said.group(0)), "int", said)
            param = self._param(name, description, said.group(0), "str", said)
            if key == "text" and candidate != said.group(0):
                return self._cased(param, candidate, said.group(0))
            return param
        return value

    def _added(self, typed: str) -> str | None:
        """The quoted value of the command a typed text ends with, after other text (what
        the field held, kept in front: "edit X to add "Y"" typed as its old text then Y);
        None when it ends with none."""
        text = typed.rstrip()
        for value in sorted(_quoted_values(self.log.command), key=len, reverse=True):
            if len(value) > 2 and text.endswith(value) and text[: -len(value)].strip():
                return value
        return None

    def _cased(self, param: Param, typed: str, said: str) -> Any:
        """The command said "tora" and "in all upper case letters"; "TORA" was typed."""
        case = "upper" if typed == said.upper() else "lower" if typed == said.lower() else ""
        if not case:
            return param
        word = _LETTER_CASE.search(self.log.command)
        if word is None or word.group(1).lower() != case:
            return Cased(param, case)
        described = "Letter case of the typed text: upper or lower"
        return Cased(param, self._param("letter_case", described, case, "case", word))

    def _param(
        self,
        name: str,
        description: str,
        example: Any,
        kind: str = "str",
        said: re.Match[str] | None = None,
    ) -> Param:
        """The parameter for a value of the command: one per place the command says it,
        whatever the steps that use it (typed into a search box, then the result of that
        name clicked), so that one value of the command is one argument."""
        span = said.span() if said else None
        for existing in self.params:
            if span is not None and self.spans.get(existing.name) == span:
                if existing.kind == kind:
                    return existing
            elif span is None and existing.name.startswith(name) and existing.example == example:
                return existing
        taken = {p.name for p in self.params} | RESERVED_NAMES
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name}_{n}", n + 1
        param = Param(unique, description, example, kind, said.group(0) if said else "")
        self.params.append(param)
        if span is not None:
            self.spans[unique] = span
        return param

    def _group_lists(self) -> None:
        """Consecutive steps on items the command lists ("a, b and c", "File > Save") become
        one step over a list parameter: the generated code loops over its items."""
        grouped: list[PlannedStep] = []
        for step in self.steps:
            last = grouped[-1] if grouped else None
            joined = self._join(last, step) if last is not None else None
            if joined is not None:
                grouped[-1] = joined
            else:
                grouped.append(step)
        self.steps = grouped

    def _join(self, first: PlannedStep, second: PlannedStep) -> PlannedStep | None:
        """One step doing both, when the second acts on the next item of a list or path."""
        a, b = _by_name(first), _by_name(second)
        if a is None or b is None or a[1].role != b[1].role or a[0] != b[0]:
            return None
        key, left, right = a[0], a[1].param, b[1].param
        start, end = self.spans.get(left.name), self.spans.get(right.name)
        if start is None or end is None or end[0] <= start[1]:
            return None
        gap = self.log.command[start[1] : end[0]]
        path = left.kind in ("str", "path") and _PATH_GAP.match(gap) is not None
        if path and first.primitive == "hover" and second.primitive in ("hover", "click"):
            return self._merge(first, second, key, left, right, "path", second.primitive)
        if _LIST_GAP.match(gap) and first.primitive == second.primitive and left.kind != "path":
            return self._merge(first, second, key, left, right, "list", first.primitive)
        return None

    def _merge(
        self,
        first: PlannedStep,
        second: PlannedStep,
        key: str,
        left: Param,
        right: Param,
        kind: str,
        primitive: str,
    ) -> PlannedStep:
        """The two steps as one over a list (or path) parameter spanning both values."""
        start, end = self.spans[left.name][0], self.spans[right.name][1]
        said = self.log.command[start:end]
        items = _items(left) + _items(right)
        example: Any = items if kind == "list" else said
        role = first.targets[key].role or "element"
        base = snake(f"{role} names") if kind == "list" else "menu_path"
        description = (
            f"Names of the {role}es to act on, e.g. {said!r}"
            if kind == "list"
            else f"The items to open in turn, the last one chosen, e.g. {said!r}"
        )
        self.params = [p for p in self.params if p not in (left, right)]
        for param in (left, right):
            self.spans.pop(param.name, None)
        merged = Param(base, description, example, kind, said)
        taken = {p.name for p in self.params} | RESERVED_NAMES
        n = 2
        while merged.name in taken:
            merged.name, n = f"{base}_{n}", n + 1
        self.params.append(merged)
        self.spans[merged.name] = (start, end)
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

    def _template(self, upto: int | None = None) -> str:
        """The command (up to ``upto``) with each parameter's words replaced by ``{name}``."""
        command = self.log.command[:upto]
        cuts = sorted(
            (span, name)
            for name, span in self.spans.items()
            if any(p.name == name for p in self.params) and span[1] <= len(command)
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


_QUESTION = re.compile(
    r"^\s*(what|how|which|who|whom|when|where|why|is|are|does|do|did|can|tell me|read|"
    r"check whether|find out)\b|\?\s*$|\b(tell me|let me know)\b",
    re.IGNORECASE,
)


# Where a command's next clause starts: "search X and sort by Y", "open X, then Y".
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?|\s+then\s+)", re.I
)


def asks_for_information(command: str) -> bool:
    """Whether the command wants an answer read off the page, not only actions."""
    return bool(_QUESTION.search(command))


def _said(value: str, command: str, whole: bool = False) -> re.Match[str] | None:
    """Where the command says ``value`` (case and punctuation aside), if it does; with
    ``whole``, only as a quoted or stand-alone token (for one-letter values such as "x").
    A secret's placeholder is said only as itself, braces included."""
    if PLACEHOLDER.fullmatch(value):
        return re.search(re.escape(value), command, re.IGNORECASE)
    words = re.findall(r"\w+", value)
    if not words:
        marks = value.strip()
        return (
            re.search(rf"(?<=[\"'\s]){re.escape(marks)}(?=[\"'\s.,]|$)", command) if marks else None
        )
    pattern = r"(?<!\w)" + r"\W*".join(re.escape(w) for w in words) + r"(?!\w)"
    trailing = re.search(r"[^\w\s]+$", value.strip())
    if trailing:  # "Where is my order?" keeps its question mark when the command has it
        pattern += f"(?:{re.escape(trailing.group())})?"
    leading = re.match(r"[#@$]+", value.strip())
    if leading:  # "#2" keeps its hash when the command has it ("ticket #2")
        pattern = f"(?:{re.escape(leading.group())})?" + pattern
    if whole:
        pattern = r"(?<=[\"'\u201c])" + pattern + r"(?=[\"'\u201d])"
    for match in re.finditer(pattern, command, re.IGNORECASE):
        before, after = command[: match.start()][-1:], command[match.end() :][:1]
        bounded = (not before or before in _OPENS) and (not after or after in _CLOSES)
        if bounded and not _half_quoted(command, match):
            return match
    return None


def _half_quoted(command: str, match: re.Match[str]) -> bool:
    """The match takes part of a quoted value and words outside it ('milestone "Sprint 4'
    of 'remove the milestone "Sprint 4"'): two values of the command, not one."""
    start, end = match.span()
    touched = [
        q.span()
        for q in _QUOTED_SPANS.finditer(command)
        if q.start() < end < q.end() or q.start() < start < q.end()
    ]
    return any(not (a <= start and end <= b) for a, b in touched)


def _within_quotes(command: str, match: re.Match[str]) -> bool:
    """Whether ``match`` lies inside one quoted value of the command."""
    start, end = match.span()
    return any(q.start() < start and end < q.end() for q in _QUOTED_SPANS.finditer(command))


def _quoted_values(command: str) -> list[str]:
    """The command's quoted values, without their quotes."""
    return [span[1:-1] for span in _QUOTED_SPANS.findall(command)]


_QUOTED_SPANS = re.compile(r"\"[^\"]*\"|“[^”]*”")


# Words that stand between a noun and its value ("the page named X", "ticket #9").
_FILLER = frozenset(
    {"named", "called", "titled", "labelled", "labeled", "with", "the", "a", "an", "to", "of",
     "for", "in", "on", "at", "by", "and", "number", "no", "id", "as", "is"}
)  # fmt: skip


def _near_words(command: str, start: int) -> str:
    """A name from the command's words just before a value: "ticket #9" gives ``ticket``,
    "a wiki page named X" ``wiki_page``; empty when there are none."""
    words = re.findall(r"[A-Za-z]+", command[:start])
    while words and words[-1].lower() in _FILLER:
        words.pop()
    taken: list[str] = []
    # The command's first word is its verb ("assign ticket #9"), not a name.
    while len(words) > 1 and words[-1].lower() not in _FILLER and len(taken) < 2:
        taken.insert(0, words.pop())
    return snake(" ".join(taken)) if taken else ""


# What may stand before and after a value in a command: a value is a whole token, never the
# "24" inside "12/24/2016" (a menu path "File>Save" is two tokens).
_OPENS = frozenset(" \t\n\"'(\u201c\u2018>,;:#")
_CLOSES = frozenset(" \t\n\"')\u201d\u2019>,;:.!?")


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()


_HREF = re.compile(r"^\[(\d+)\][^\n]*?\shref=(\S+)", re.MULTILINE)


def _address_shape(href: str) -> tuple[str, ...]:
    """An address with its values set aside: the path's folder and the query's keys
    ("/wiki/Gamma" and "/wiki/Delta" are of one shape, "?_sort=a" and "?_sort=b" too)."""
    if not href:
        return ()
    parts = urlsplit(href.strip("\"'"))
    folder = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    return (folder, *sorted(key for key, _value in parse_qsl(parts.query, True)))


# Values of a shape a command says exactly: an email address, a web address, a number of
# three digits or more (a phone, an order number).
_EXACT_SHAPES = {
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"https?://\S+"),
    "number": re.compile(r"\+?\d[\d\s-]{2,}\d"),
}


def _contradicted(typed: str, command: str) -> str | None:
    """The command's value that typed text of the same exact shape stands in place of
    (grace@example.com typed where the command says ada@example.com: corrected during
    the run); None when the command says the typed text or no value of its shape."""
    text = typed.strip()
    if not text or _said(text, command) is not None:
        return None
    for pattern in _EXACT_SHAPES.values():
        if pattern.fullmatch(text):
            said = [v for v in pattern.findall(command) if v.strip(".,") != text]
            return said[0].strip(".,") if said else None
    return None


def _heading(role: str) -> bool:
    """Whether a get_dom line of this role is a heading (h1 to h6)."""
    return len(role) == 2 and role[0] == "h" and role[1].isdigit()


def _ordinal_value(match: re.Match[str]) -> int:
    if match["n"]:
        return int(match["n"])
    return _ORDINAL_WORDS.index(match["w"].lower()) + 1


def _built_or_plain(pieces: list[str | Param]) -> str | BuiltUrl:
    """An address from its pieces: plain when no parameter is left in it."""
    if not any(isinstance(p, Param) for p in pieces):
        return "".join(p for p in pieces if isinstance(p, str))
    merged: list[str | Param] = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        elif piece != "":
            merged.append(piece)
    return BuiltUrl(merged)


def _says_sent(log: ChatLog) -> bool:
    """Whether the log says when a step sent data to the site (this project's runs since
    they do, see planner.records.SAYS): only then does saying nothing mean nothing sent."""
    return log.meta.get("sent_data_said") is True


def _params_in(value: Any) -> list[Param]:
    """The parameters a step's argument uses."""
    if isinstance(value, Param):
        return [value]
    if isinstance(value, ByRoleName):
        return [value.param]
    if isinstance(value, BuiltUrl):
        return [p for p in value.parts if isinstance(p, Param)]
    return []


# What may stand between a kind of thing and its value: `the category "Trees"`,
# "the page named X".
_NAMING_GAP = re.compile(r"[\s\"'\u201c:]*(?:(?:named|called|titled|labell?ed)[\s\"'\u201c:]*)?")


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


def _path_varies(path: str, params: list[Param]) -> bool:
    """Whether a path the run went to holds a value of the command or a number the app
    gave (a new record's): another instance goes elsewhere."""
    values = {str(v) for p in params for v in _items(p)}
    segments = [unquote(s) for s in urlsplit(path).path.split("/")]
    return bool(values & set(segments)) or made_by_the_app(path, params)


def made_by_the_app(path: str, params: list[Param]) -> bool:
    """Whether a path or its query holds a number or generated key that no value of the
    command gave: the app made it (``/ticket/12`` after "create a ticket", ``?id=4`` after
    "add a user"), so replays end elsewhere."""
    values = {str(v) for p in params for v in _items(p)}
    parts = urlsplit(path)
    pieces = [unquote(s) for s in parts.path.split("/")]
    pieces += [value for _key, value in parse_qsl(parts.query)]
    for plain in pieces:
        made = plain.isdigit() or (len(plain) > 7 and looks_generated(plain))
        if made and plain not in values:
            return True
    return False


def _items(param: Param) -> list[str]:
    return list(param.example) if isinstance(param.example, list) else [str(param.example)]


def plan_skill(log: ChatLog, named: frozenset[str] = frozenset()) -> SkillPlan:
    """The harvestable stretch of a successful run, or NotHarvestable saying why not.
    ``named``: values of the command that name a fixed control (replays refuted reading
    them as a choice among what the site listed), kept as literal names."""
    if log.routed_to:
        raise NotHarvestable(f"{log.path}: done by the skill {log.routed_to}: nothing to learn")
    if not log.succeeded:
        raise NotHarvestable(f"{log.path}: the run did not succeed")
    if not log.calls:
        raise NotHarvestable(f"{log.path}: the run made no tool calls")
    return _Builder(log, named=named).build()
