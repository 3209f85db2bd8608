"""Reading get_dom output back into elements the offline planner can match against."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

from browser_agent.dom.page_content import PAGE_END, PAGE_START
from browser_agent.dom.page_lines import BARE, ElementLine, element_lines, unquoted
from browser_agent.dom.page_lines import QUOTED as _QUOTED
from browser_agent.llm.offline.words import words

_HEADER = re.compile(rf"^Page ({_QUOTED}) at (\S+)(?: \(language: ([\w-]+)\))?$")
_TOKEN = re.compile(
    rf"\s*(?:(?P<key>[\w-]+)=(?P<val>{_QUOTED}|{BARE})"
    rf"|options=\[(?P<opts>(?:{_QUOTED}:{_QUOTED}\*?(?:, )?|…\d+ more)*)\]"
    r"|\((?P<state>[^()]*)\)|(?P<colon>:))"
)
_OPTION = re.compile(rf"({_QUOTED}):({_QUOTED})(\*?)")
_QUOTED_LINE = re.compile(rf"^{_QUOTED}$")

#: Roles a person types into, and roles a person clicks.
TEXT_ROLES = frozenset({"textbox", "searchbox", "spinbutton"})
CHOICE_ROLES = frozenset({"combobox", "listbox"})
TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch"})
CLICK_ROLES = frozenset(
    {"button", "link", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "option",
     "treeitem", *TOGGLE_ROLES}
)  # fmt: skip


@dataclass(frozen=True)
class Option:
    """One option of a drop-down."""

    value: str
    label: str
    selected: bool


@dataclass(frozen=True)
class Element:
    """One line of the distilled DOM: an mmid with its role, name and identifying attributes."""

    mmid: str
    role: str
    name: str
    attrs: dict[str, str] = field(default_factory=dict)
    options: tuple[Option, ...] = ()
    states: frozenset[str] = frozenset()
    position: int = 0

    @property
    def selector(self) -> str:
        return f"[mmid='{self.mmid}']"

    @property
    def is_text(self) -> bool:
        return self.role == "text" or re.fullmatch(r"h[1-6]", self.role) is not None

    @property
    def is_heading(self) -> bool:
        return re.fullmatch(r"h[1-6]", self.role) is not None

    @property
    def is_password(self) -> bool:
        return self.attrs.get("type") == "password"

    @property
    def clickable(self) -> bool:
        """A control a person clicks: by its role, or a generic element marked clickable."""
        return self.role in CLICK_ROLES or "clickable" in self.states

    @property
    def label_words(self) -> set[str]:
        """Every word that names the element: name, placeholder, aria-label, id and name,
        and the kind of value a typed field holds (date, time, email...)."""
        found = set(words(self.name))
        for key in ("placeholder", "aria-label", "title", "id", "name"):
            found.update(words(self.attrs.get(key, "")))
        if self.attrs.get("type") not in (None, "text"):
            found.update(words(self.attrs["type"]))
        return found

    def describe(self) -> str:
        """How the planner's messages refer to this element."""
        return f'the {self.role} "{self.name}"' if self.name else f"the {self.role} {self.mmid}"


@dataclass
class Page:
    """One observation: title, URL, the page's language when not English (its ``lang``),
    whether a modal covers the page, and its lines."""

    title: str = ""
    url: str = ""
    lang: str = ""
    modal: bool = False
    elements: list[Element] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"

    def interactive(self) -> list[Element]:
        return [e for e in self.elements if not e.is_text and e.role != "iframe"]

    def headings(self) -> list[Element]:
        return [e for e in self.elements if e.is_heading]

    def following(self, anchor: Element) -> list[Element]:
        """The elements after ``anchor`` up to the next link, button or heading."""
        after = self.elements[anchor.position + 1 :]
        run: list[Element] = []
        for element in after:
            if element.is_heading or element.role in ("link", "button"):
                break
            run.append(element)
        return run


def parse_page(text: str) -> Page:
    """A Page from get_dom output of any content type (text_only lines carry no mmids)."""
    page = Page()
    raws = text.splitlines()
    for raw, read in zip(raws, element_lines(raws), strict=True):
        line = raw.strip()
        header = _HEADER.match(line)
        if header and not page.url:
            page.title, page.url = json.loads(header.group(1)), header.group(2)
            page.lang = header.group(3) or ""
        elif line.startswith("A modal dialog is open"):
            page.modal = True
        elif read is not None:
            element = _element(read, len(page.elements))
            page.elements.append(element)
            if element.name:
                page.texts.append(element.name)
        elif _QUOTED_LINE.match(line):  # a text_only line: page text, always quoted
            page.texts.append(json.loads(line))
        elif line and line not in (PAGE_START, PAGE_END) and not line.startswith("… output cut"):
            page.texts.append(line)
    return page


def _element(read: ElementLine, position: int) -> Element:
    attrs: dict[str, str] = {} if read.value is None else {"value": read.value}
    options: list[Option] = []
    states: set[str] = set()
    for token in _TOKEN.finditer(read.rest):
        if token.group("key"):
            attrs[token.group("key")] = unquoted(token.group("val"))
        elif token.group("opts") is not None:
            options = [
                Option(json.loads(v), json.loads(label), star == "*")
                for v, label, star in _OPTION.findall(token.group("opts"))
            ]
        elif token.group("state") is not None:
            states.update(s.strip() for s in token.group("state").split(","))
    return Element(
        mmid=read.mmid,
        role=read.kind,
        name=read.name,
        attrs=attrs,
        options=tuple(options),
        states=frozenset(states),
        position=position,
    )


def points_here(element: Element, page: Page) -> bool:
    """The element links to the page it is on."""
    href = element.attrs.get("href", "")
    if not href or href.startswith("#"):
        return False
    return urldefrag(urljoin(page.url, href))[0] == urldefrag(page.url)[0]
