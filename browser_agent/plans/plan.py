"""What a skill plan is: the steps of a run a skill repeats, its parameters (values that
came from the command) and where it ends, and whether a path it went to was made by the
app; :func:`browser_agent.harvest.plan_steps.plan_skill` reads one from a run's log.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from browser_agent.errors import BrowserAgentError
from browser_agent.skills.primitive import PRIMITIVES

# Names a generated module defines or imports; parameters and skills must not shadow them.
RESERVED_NAMES = {"start_url", "said", "Annotated", "Target", "done", "expect", "find", "str"}
RESERVED_NAMES |= {"answering_dialogs", "quote", "urljoin"}
RESERVED_NAMES |= set(PRIMITIVES)
RUN_ENDED = "the run ended"

# Ids that a framework or a build generated: they change between page loads or releases.
_GENERATED_ID = re.compile(
    r"(^(ember|react-|:r|radix-|mui-|headlessui-|ng-|yui_|ext-gen|gwt-|j_id|__next|svelte-))"
    r"|([0-9a-f]{8,})|(\d{3,})|([0-9a-f]{8}-[0-9a-f]{4}-)",
    re.IGNORECASE,
)


class NotHarvestable(BrowserAgentError, ValueError):
    """The log holds nothing worth a skill; the message says why."""


@dataclass
class ElementRecord:
    """Everything recorded about one element a skill acts on."""

    selector: str
    role: str
    name: str
    tag: str
    text: str = ""
    attributes: dict[str, str] = field(default_factory=dict)
    xpath: str = ""
    context: dict = field(default_factory=dict)  # nearest heading, place among equals

    def as_dict(self) -> dict:
        return asdict(self)


def looks_generated(identifier: str) -> bool:
    """True for ids that a framework or build made up (long hex or digit runs, prefixes)."""
    return bool(_GENERATED_ID.search(identifier))


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
    the words the site writes around the value ("Milestone " of "Milestone Sprint 4").
    ``within``: the site's words change from item to item (its own number, its status:
    "Bug #6 (New): <title>"), so the element is found by the value inside its name."""

    role: str
    param: Param
    before: str = ""
    after: str = ""
    within: bool = False


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
    call: int = -1  # the log's call it was made from (its index), -1 for none


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
    # the skill on values the site itself offers (see skills.replay), at its harvest and
    # at every validation.
    listed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when the skill does the whole command, not just its first stretch; a
        command that asks for information needs reading that no skill does, and a log
        some of whose calls were dropped may have done more than the skill does."""
        if self.dropped:
            return False
        return self.ended_because == RUN_ENDED and not asks_for_information(self.command)


def snake(text: str) -> str:
    """A safe Python identifier made of the words of ``text``."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words[:4]) or "value"
    if name[0].isdigit():
        name = f"value_{name}"
    return f"{name}_" if keyword.iskeyword(name) else name


_QUESTION = re.compile(
    r"^\s*(what|how|which|who|whom|when|where|why|is|are|does|do|did|can|tell me|read|"
    r"check whether|find out)\b|\?\s*$|\b(tell me|let me know)\b",
    re.IGNORECASE,
)


def asks_for_information(command: str) -> bool:
    """Whether the command wants an answer read off the page, not only actions."""
    return bool(_QUESTION.search(command))


def made_by_the_app(path: str, params: list[Param]) -> bool:
    """Whether a path or its query holds a number or generated key that no value of the
    command gave: the app made it (``/ticket/12`` after "create a ticket", ``?id=4`` after
    "add a user"), so replays end elsewhere."""
    values = {str(v) for p in params for v in param_items(p)}
    parts = urlsplit(path)
    pieces = [unquote(s) for s in parts.path.split("/")]
    pieces += [value for _key, value in parse_qsl(parts.query)]
    for plain in pieces:
        made = plain.isdigit() or (len(plain) > 7 and looks_generated(plain))
        if made and plain not in values:
            return True
    return False


def param_items(param: Param) -> list[str]:
    """The values a parameter stands for: its items, or its one example."""
    return list(param.example) if isinstance(param.example, list) else [str(param.example)]
