"""The tasks a command is turned into, each done on some page, and the plan that holds them.

A task holds what the command says; which element serves it is decided later, on the
page, by matching words (see :mod:`browser_agent.llm.offline.resolve`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from browser_agent.llm.offline.form_tasks import FormTask

#: Press.nth for "the textbox" when the page has just one: that one, else could not.
ONLY = -1

# The names a site gives the link to a view of a page that a command asks for.
VIEW_LINKS = {
    "history": ("history", "page history", "revisions", "revision history", "versions"),
    "revisions": ("revisions", "history", "versions"),
    "changes": ("changes", "history", "diff"),
    "settings": ("settings", "preferences", "options"),
    "edit": ("edit", "edit this page", "edit page"),
    "source": ("source", "view source", "raw"),
    "log": ("log", "history"),
}


def ordinal_word(n: int) -> str:
    """How a position is written: 1 -> "1st", 12 -> "12th"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Goto:
    """Open a URL."""

    url: str

    def describe(self) -> str:
        return f"open {self.url}"


@dataclass(frozen=True)
class Reach:
    """Get to the page named by ``phrase``: follow its link, or search the site for it, or
    look where the site keeps things of its ``kind`` (a database among "Databases")."""

    phrase: str
    search: bool = True
    kind: str = ""

    def describe(self) -> str:
        return f'open "{self.phrase}"'


@dataclass(frozen=True)
class Search:
    """Type ``query`` into the site's search box, or the box of the ``scope`` ("stores");
    unless ``strict``, the site's search box serves when the scope has no box of its own."""

    query: str
    scope: str = ""
    strict: bool = True

    def describe(self) -> str:
        where = f" {self.scope}" if self.scope else ""
        return f'search{where} for "{self.query}"'


@dataclass(frozen=True)
class Assign:
    """Give a field its value: ``text`` is "label value" split on the page, or keys + value.

    A text that names a checkbox or radio button ticks it; with ``clicks`` a text that
    names a button or link clicks it.
    """

    text: str = ""
    keys: tuple[str, ...] = ()
    value: str = ""
    via: tuple[str, ...] = ()
    clicks: bool = False
    read_from: str = ""  # the value is the text the page shows for this label

    def describe(self) -> str:
        if self.read_from:
            return f'set {self.keys[0]} to the value of "{self.read_from}"'
        if self.keys:
            return f'set {self.keys[0]} to "{self.value}"'
        return f'set "{self.text}"'


@dataclass(frozen=True)
class Press:
    """Click the button, link or tab named by one of ``phrases``; with ``nth``, the nth
    element of ``role`` on the page ("the 3rd checkbox")."""

    phrases: tuple[str, ...]
    role: str = ""
    via: tuple[str, ...] = ()
    nth: int = 0
    hover: bool = False  # point at it (a menu item that opens a submenu) instead of clicking

    def describe(self) -> str:
        if self.hover:
            return f'point at "{self.phrases[0]}"'
        if self.nth == ONLY:
            return f"click the only {self.role or 'element'}"
        if self.nth:
            return f"click the {ordinal_word(self.nth)} {self.role or 'element'}"
        return f'click "{self.phrases[0]}"'


@dataclass(frozen=True)
class Suggest:
    """Choose, among the suggestions a field offers as one types, the one that starts with
    ``prefix`` and ends with ``suffix``."""

    prefix: str
    suffix: str = ""

    def describe(self) -> str:
        ends = f' and ends with "{self.suffix}"' if self.suffix else ""
        return f'choose the suggestion that starts with "{self.prefix}"{ends}'


@dataclass(frozen=True)
class Explore:
    """Look through the page's tabs (or similar) for the next task's target."""

    where: str

    def describe(self) -> str:
        return f"look through the {self.where}"


@dataclass(frozen=True)
class Dismiss:
    """Close a modal dialog or cookie banner, by ``choice`` (accept, reject) or any way."""

    choice: str = ""
    via: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{self.choice or 'dismiss'} the dialog"


@dataclass(frozen=True)
class Read:
    """Read something off the page: a ``price``, a ``count`` or a ``text`` about ``subject``."""

    what: str
    subject: str = ""

    def describe(self) -> str:
        return f'read the {self.what} of "{self.subject}"' if self.subject else f"read {self.what}"


#: The tasks that find and use an element of the page (see :func:`.resolve.resolve`).
PageTask = Goto | Reach | Search | Assign | Press | Dismiss | Explore | Suggest
Task = PageTask | Read | FormTask


@dataclass
class Plan:
    """The tasks of a command, or the reason it could not be planned."""

    tasks: list[Task] = field(default_factory=list)
    problem: str = ""
