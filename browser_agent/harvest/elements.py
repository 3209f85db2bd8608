"""What a log says about an element, and a stable way to find it again.

Tool responses name elements by their opening tag (``<input id="q" name="q">``); get_dom
lines name them by mmid, role and accessible name. From these, an ElementRecord keeps
everything needed to find the element again in stages and to know it is the same control.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from bs4 import BeautifulSoup
from bs4 import Tag as BsTag

from browser_agent.dom.page_lines import element_lines
from browser_agent.plans.plan import ElementRecord, looks_generated

_MMID = re.compile(r"""\[\s*mmid\s*=\s*["']?(\d+)["']?\s*\]""")
_NAMED_MMID = re.compile(r"mmid\s*=\s*['\"]?(\d+)")
# Text longer than this inside an element is content, not a label to find it by.
_MAX_TEXT = 200

# What a field shows while empty: a form field's placeholder, a rich-text editor's
# data-placeholder or aria-placeholder (an editor's box is never named by its text).
PLACEHOLDERS = ("placeholder", "data-placeholder", "aria-placeholder")

_ROLE_OF_INPUT = {
    "button": "button",
    "submit": "button",
    "reset": "button",
    "image": "button",
    "checkbox": "checkbox",
    "radio": "radio",
    "range": "slider",
    "number": "spinbutton",
    "search": "searchbox",
}


@dataclass
class Tag:
    """An element as a response printed it: tag name, attributes, visible text."""

    tag: str
    attributes: dict[str, str]
    text: str = ""
    start: int = 0


def find_tags(text: str) -> list[Tag]:
    """Every element a free text quotes, read with an HTML parser, in the order they start:
    tag name, attributes (entities decoded), the text inside it when the text closes it,
    and where in ``text`` its opening tag starts."""
    text = text or ""
    if "<" not in text:
        return []
    soup = BeautifulSoup(text, "html.parser", multi_valued_attributes=None)
    line_starts = _line_starts(text)
    closed_at_end = _closing_tags_at_end(text)
    found = []
    for element in soup.find_all(True):
        attributes = {str(k).lower(): str(v) for k, v in element.attrs.items()}
        inner = _inner_text(element) if _is_closed(element, closed_at_end) else ""
        found.append(Tag(element.name.lower(), attributes, inner, _offset(element, line_starts)))
    return found


def _line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts (the parser counts lines from 1)."""
    starts = [0]
    position = text.find("\n")
    while position >= 0:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def _offset(element: BsTag, line_starts: list[int]) -> int:
    """Where the element's opening tag starts in the parsed text."""
    line, column = element.sourceline or 1, element.sourcepos or 0
    return line_starts[min(line, len(line_starts)) - 1] + column


def _closing_tags_at_end(text: str) -> set[str]:
    """Names of the end tags the text finishes with (``...</span></div>`` gives both)."""
    names: set[str] = set()
    rest = text.rstrip()
    while rest.endswith(">"):
        opening = rest.rfind("<")
        if opening < 0 or not rest.startswith("</", opening):
            break
        names.add(rest[opening + 2 : -1].strip().lower())
        rest = rest[:opening].rstrip()
    return names


def _is_closed(element: BsTag, closed_at_end: set[str]) -> bool:
    """Whether the text closed the element: something follows its content, or it is one of
    the end tags the text finishes with. An element the text leaves open would otherwise
    swallow the rest of the message as its own text."""
    if element.is_empty_element:
        return False
    tail = deque(element.descendants, maxlen=1)
    last = tail[0] if tail else element
    return last.next_element is not None or element.name.lower() in closed_at_end


def _inner_text(element: BsTag) -> str:
    """The element's visible text, whitespace collapsed; empty when it is too long to be
    a label."""
    inner = " ".join(element.get_text(" ").split())
    return inner if len(inner) <= _MAX_TEXT else ""


def tag_for_selector(response: str, selector: str) -> Tag | None:
    """The tag a response printed for ``selector``: the one nearest to where the response
    names the selector (or its mmid), else the first."""
    tags = find_tags(response)
    if not tags:
        return None
    position = response.find(selector) if selector else -1
    if position < 0:
        mmid = _MMID.search(selector or "")
        position = _mmid_position(response, mmid.group(1)) if mmid else -1
    if position < 0 or len(tags) == 1:
        return tags[0]
    return min(tags, key=lambda t: abs(t.start - position))


def _mmid_position(text: str, mmid: str) -> int:
    """Where ``text`` first names the element with this mmid, or -1."""
    for match in _MMID.finditer(text):
        if match.group(1) == mmid:
            return match.start()
    return -1


def selector_mmid(selector: object) -> str | None:
    """The mmid a call's selector names (``[mmid='12']``, ``mmid=12``), if any."""
    found = _NAMED_MMID.search(str(selector or ""))
    return found.group(1) if found else None


def observed_elements(dom_text: str) -> dict[str, tuple[str, str]]:
    """mmid -> (role, accessible name) from a get_dom answer."""
    lines = element_lines((dom_text or "").splitlines())
    return {line.mmid: (line.kind, line.name) for line in lines if line is not None}


def disabled_elements(dom_text: str) -> set[str]:
    """The mmids of a get_dom answer's elements marked disabled."""
    lines = element_lines((dom_text or "").splitlines())
    return {line.mmid for line in lines if line is not None and "(disabled)" in line.rest}


def toggle_elements(dom_text: str) -> dict[str, bool]:
    """mmid -> expanded, for a get_dom answer's elements that open and close something
    (shown as expanded or collapsed: a menu button, a panel's toggle)."""
    lines = element_lines((dom_text or "").splitlines())
    return {
        line.mmid: "(expanded)" in line.rest
        for line in lines
        if line is not None and ("(expanded)" in line.rest or "(collapsed)" in line.rest)
    }


def role_of(tag: Tag) -> str:
    """The implicit ARIA role of a tag, as the page library computes it."""
    explicit = tag.attributes.get("role")
    if explicit:
        return explicit.split()[0]
    if tag.attributes.get("contenteditable", "false").lower() in ("", "true", "plaintext-only"):
        return "textbox"
    if tag.tag == "input":
        return _ROLE_OF_INPUT.get(tag.attributes.get("type", "text").lower(), "textbox")
    return {
        "a": "link",
        "button": "button",
        "select": "combobox",
        "textarea": "textbox",
        "summary": "button",
    }.get(tag.tag, tag.tag)


def _css(value: str) -> str:
    return json.dumps(value)


def stable_selector(tag: Tag, role: str, name: str) -> str | None:
    """The first stable selector in the documented order, or None when there is none.

    Order: a meaningful id, then name, data-testid, aria-label, placeholder, option value,
    then role plus visible text.
    """
    attrs = tag.attributes
    element_id = attrs.get("id", "")
    if element_id and not looks_generated(element_id):
        return (
            f"#{element_id}"
            if re.fullmatch(r"[A-Za-z][\w-]*", element_id)
            else (f"[id={_css(element_id)}]")
        )
    for attribute in ("name", "data-testid", "aria-label", *PLACEHOLDERS):
        value = attrs.get(attribute)
        if value and not (attribute == "name" and looks_generated(value)):
            return f"{tag.tag}[{attribute}={_css(value)}]"
    if tag.tag == "option" and attrs.get("value"):
        return f"option[value={_css(attrs['value'])}]"
    label = name or tag.text
    if label:
        return f"role={role}[name={_css(label)}]"
    return None


def xpath_of(tag: Tag, name: str) -> str:
    """An XPath from static attributes, a last resort when CSS and roles fail."""
    for attribute in ("id", "name", "data-testid", "aria-label", *PLACEHOLDERS):
        value = tag.attributes.get(attribute)
        if value and "'" not in value:
            return f"//{tag.tag}[@{attribute}='{value}']"
    text = tag.text or name
    if text and "'" not in text:
        return f"//{tag.tag}[normalize-space()='{text}']"
    return ""


def by_value(role: str, attributes: Mapping[str, str]) -> bool:
    """Whether a box with no label is known by its value: a list's row checkbox or radio
    (``value="Sprint 4"``) stands for what its row shows; "on" is every box's default."""
    value = attributes.get("value", "").strip()
    return role in ("checkbox", "radio") and bool(value) and value.lower() != "on"


STATIC_ATTRIBUTES = (
    "id",
    "name",
    "type",
    "data-testid",
    "aria-label",
    *PLACEHOLDERS,
    "href",
    "title",
    "alt",
    "role",
    "contenteditable",
)


def element_record(tag: Tag, role: str | None, name: str | None) -> ElementRecord | None:
    """The record of an acted-on element, or None when it cannot be found again stably."""
    role = role or role_of(tag)
    editor = role == "textbox" and tag.tag not in ("input", "textarea")
    if editor:  # an editor box's text is what was typed, not what tells it apart
        tag = Tag(tag.tag, tag.attributes, "", tag.start)
    if name is None and editor:
        hints = [tag.attributes.get(a, "") for a in ("aria-label", *PLACEHOLDERS)]
        name = next((h for h in hints if h), "")
    if name is None:
        name = tag.attributes.get("aria-label") or tag.text or tag.attributes.get("placeholder", "")
    kept = STATIC_ATTRIBUTES
    if not name and by_value(role, tag.attributes):
        name, kept = tag.attributes["value"], (*STATIC_ATTRIBUTES, "value")
    selector = stable_selector(tag, role, name)
    if selector is None:
        return None
    return ElementRecord(
        selector=selector,
        role=role,
        name=name,
        tag=tag.tag,
        text=tag.text,
        attributes={k: v for k, v in tag.attributes.items() if k in kept},
        xpath=xpath_of(tag, name),
    )
