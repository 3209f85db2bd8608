"""The tasks of everyday application work (create, edit, remove a thing), as a person does
it on any site: the site's own control for the verb, the form's fields, the form's button,
the confirmation. Each is done on the page by :mod:`browser_agent.llm.offline.forms`."""

from __future__ import annotations

from dataclasses import dataclass

#: The words a site's control for each verb goes by, in the order they are tried ("archive"
#: is only ever an archive control: a site without one is not asked to delete instead).
CONTROL_WORDS: dict[str, tuple[str, ...]] = {
    "create": ("new", "create", "add", "+"),
    "edit": ("edit", "change", "modify", "update"),
    "remove": ("delete", "remove", "trash"),
    "archive": ("archive",),
}
#: The words of the button that sends the form of each verb.
SAVE_WORDS: dict[str, tuple[str, ...]] = {
    "create": ("save", "create", "publish", "submit", "add", "post", "done"),
    "edit": ("save", "update", "publish", "submit", "apply", "done", "change"),
    "filter": ("apply", "filter", "update", "go", "show", "submit", "ok", "refresh"),
}
#: The labels a thing's title field goes by, and those of its text.
TITLE_KEYS = ("title", "subject", "name", "summary", "headline")
TEXT_KEYS = ("text", "body", "content", "description", "details", "message")
#: The labels of the field that says who a thing is assigned to.
ASSIGN_KEYS = ("assignee", "assigned to", "assign to", "reassign to", "owner", "assign")


def thing(noun: str, target: str) -> str:
    """How the answers name the thing: 'the page "Gamma"', 'a page', 'it'."""
    if target:
        return f'the {noun} "{target}"' if noun else f'"{target}"'
    article = "an" if noun[:1] in "aeiou" else "a"
    return f"{article} {noun}" if noun else "it"


@dataclass(frozen=True)
class Control:
    """Use the site's own control for ``verb`` (create, edit, remove): a link or button
    named "New page", "Edit", "Delete issue", "+"…; ``word`` is the command's own verb
    ("archive"), tried first."""

    verb: str
    noun: str = ""
    target: str = ""
    word: str = ""

    @property
    def words(self) -> tuple[str, ...]:
        """The names tried for the control, the command's own verb first."""
        known = CONTROL_WORDS["archive" if self.word == "archive" else self.verb]
        own = (self.word,) if self.word and self.word.isalpha() else ()
        return (*own, *(w for w in known if w not in own))

    def describe(self) -> str:
        named = thing(self.noun, "" if self.verb == "create" else self.target)
        return f"{self.word or self.verb} {named}"


@dataclass(frozen=True)
class Write:
    """Give the form's field for ``label`` (its title, text, priority…) ``value``, found by
    ``keys``; with ``append``, add it after what the field holds."""

    label: str
    keys: tuple[str, ...]
    value: str
    append: bool = False
    noun: str = ""

    def describe(self) -> str:
        how = "add" if self.append else "write"
        return f'{how} "{self.value}" in the {self.label} field'


@dataclass(frozen=True)
class Setting:
    """Get to the page holding the field for ``label`` (a setting: the site's title, a
    table's comment): the page as it is, else the site's settings, reached by links named
    Settings, Options, Preferences… (see :data:`SETTINGS_WORDS`), one at a time."""

    label: str
    keys: tuple[str, ...]

    def describe(self) -> str:
        return f"find the {self.label} field"


#: The names of the links to where a site or a thing keeps its settings.
SETTINGS_WORDS = (
    "settings",
    "options",
    "preferences",
    "configuration",
    "properties",
    "operations",
    "general",
)


@dataclass(frozen=True)
class Save:
    """Send the form of ``verb`` with its own button ("Save", "Create page", "Submit")."""

    verb: str
    noun: str = ""
    target: str = ""

    def describe(self) -> str:
        if self.verb == "filter":
            return "apply the filter"
        made = f"the new {self.noun or 'one'}" if self.verb == "create" else ""
        return f"save {made or thing(self.noun, self.target)}"


@dataclass(frozen=True)
class Confirm:
    """Confirm a removal the site asks about: its confirmation page or dialog's button;
    nothing to do when it asks nothing."""

    noun: str = ""
    target: str = ""

    def describe(self) -> str:
        return f"confirm removing {thing(self.noun, self.target)}"


#: The parts of a filter, in the order a person sets them.
FILTER_PARTS = ("column", "comparison", "value")


@dataclass(frozen=True)
class Narrow:
    """Set one ``part`` of a filter on the list: its column chooser, its comparison or its
    value field (each nothing to do when the page has no such part, or it is already so)."""

    part: str
    column: str
    comparison: str
    value: str

    def describe(self) -> str:
        said = {"column": self.column, "comparison": self.comparison, "value": self.value}
        return f'set the filter\'s {self.part} to "{said[self.part]}"'


@dataclass(frozen=True)
class Order:
    """Sort a list by ``column`` (``direction``: ascending, descending or as the site
    sorts): the site's sort drop-down set to ``value``, else the column's header clicked
    until the page's address says it is sorted so."""

    column: str
    direction: str
    value: str

    def describe(self) -> str:
        return f'sort by "{self.value}"'


FormTask = Control | Write | Setting | Save | Confirm | Narrow | Order
