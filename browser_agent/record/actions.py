"""What the person did, as the primitive calls a planner would have made for it.

Each reported event becomes a get_dom call (the page as it was observed at that moment)
followed by the action on ``[mmid='N']`` with a response in the primitive's own words
(``Clicked <button id="go">Go</button>.``), so the harvester reads a recording exactly as
it reads a planner's run: role and name from the observation, stable attributes from the
opening tag. A password is never kept: its field gets a secret's ``{NAME}`` placeholder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from browser_agent.browser.effects import SENT_DATA
from browser_agent.browser.observe import window_line
from browser_agent.dom.page_content import fenced, neutralised
from browser_agent.harvest.elements import observed_elements

# Lines of an observation that are page text, not controls (see the page library).
_TEXT_KINDS = frozenset({"text", "iframe", "h1", "h2", "h3", "h4", "h5", "h6"})
# Clicks on these only focus a field or open a drop-down: the typing or choice that
# follows is the action. (A <select>'s own option is chosen by the select event; an
# option of a listbox the page drew, an autocomplete's suggestion, is a click.)
_FIELD_KINDS = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "listbox", "slider"})
_FIELD_TAGS = ("<input", "<textarea", "<select", "<option")
_NOT_TYPED = ('type="checkbox"', 'type="radio"', 'type="submit"', 'type="button"')


@dataclass
class Action:
    """One primitive call of a recording, with the observation that preceded it."""

    tool: str
    arguments: dict[str, Any]
    response: str
    url: str = ""
    observation: str | None = None  # the get_dom answer the element's mmid refers to
    navigated_to: str | None = None
    notes: list[str] = field(default_factory=list)  # dialogs, new tabs
    sent: bool = False  # the page sent data to the site after it (see effects.SENT_DATA)

    def answer(self) -> str:
        """The response with what the action changed, as the primitive would say it."""
        said = [self.response]
        if self.navigated_to:
            said.append(f"Page navigated to {self.navigated_to}.")
        said.extend(self.notes)
        if self.sent:
            said.append(SENT_DATA)
        return " ".join(said)


def observation_text(dom: str) -> str | None:
    """The get_dom answer for the page library's observe result (JSON text), or None when
    the page could not be observed."""
    try:
        result = json.loads(dom)
        header, _, body = result["text"].partition("\n")
        window = window_line(result, 0)
    except (ValueError, KeyError, TypeError):
        return None
    shown = [neutralised(header), window] if window else [neutralised(header)]
    return "\n".join([*shown, fenced(body)])


def _control(event: dict[str, Any], observation: str | None) -> tuple[str, str] | None:
    """(mmid, opening tag) of the nearest element of the chain the observation lists as a
    control; None when the person clicked on text or empty space."""
    listed = observed_elements(observation or "")
    for mmid, tag in event.get("chain") or []:
        kind = listed.get(str(mmid), ("", ""))[0]
        if kind and kind not in _TEXT_KINDS:
            return str(mmid), str(tag)
    return None


def _field(event: dict[str, Any]) -> tuple[str, str] | None:
    """(mmid, opening tag) of the field an event happened in: the first of its chain."""
    chain = event.get("chain") or []
    return (str(chain[0][0]), str(chain[0][1])) if chain else None


def _dragged(event: dict[str, Any], observation: str | None, url: str) -> Action | None:
    """A drag and drop: the element dragged (when the page let it be seen) and where."""
    found = _control(event, observation) or _field(event)
    if found is None:
        return None
    mmid, tag = found
    source = event.get("from") or []
    arguments = {"target": f"[mmid='{mmid}']"}
    said = f"Dropped onto {tag}."
    if source:
        arguments["source"] = f"[mmid='{source[0][0]}']"
        said = f"Dragged {source[0][1]} and dropped it onto {tag}."
    return Action("drag_and_drop", arguments, said, url, observation)


def action_for(event: dict[str, Any], password_name: str | None = None) -> Action | None:
    """The primitive call for one reported event (None for what is no action: a click
    that only focused a field). ``password_name`` is the secret a password field's
    text stands for; the text itself is never looked at then."""
    kind = event.get("kind")
    observation = observation_text(str(event.get("dom") or ""))
    url = str(event.get("url") or "")
    if kind == "key":
        keys = str(event.get("keys") or "")
        return Action("press_key_combination", {"keys": keys}, f"Pressed {keys}.", url)
    if kind == "click":
        found = _control(event, observation)
        if found is None:
            return None
        mmid, tag = found
        kind_seen = observed_elements(observation or "")[mmid][0]
        typed_field = tag.startswith(_FIELD_TAGS) and not any(t in tag for t in _NOT_TYPED)
        if kind_seen in _FIELD_KINDS or typed_field:
            return None
        return Action(
            "click", {"selector": f"[mmid='{mmid}']"}, f"Clicked {tag}.", url, observation
        )
    if kind == "drag":
        return _dragged(event, observation, url)
    found = _field(event)
    if found is None:
        return None
    mmid, tag = found
    selector = f"[mmid='{mmid}']"
    if kind == "file":
        count = int(event.get("count") or 0)
        said = f"Chose {count} file{'' if count == 1 else 's'} in {tag}."
        return Action("upload_file", {"selector": selector}, said, url, observation)
    if kind == "select":
        value, label = str(event.get("value") or ""), str(event.get("label") or "")
        said = f"Selected option {value!r} ({label}) in {tag}."
        arguments = {"selector": selector, "option": label or value}
        return Action("select_option", arguments, said, url, observation)
    if kind != "type":
        return None
    if password_name is not None:
        text = "{" + password_name + "}"
        said = f"Text {text!r} entered in {tag} (secrets not shown)."
    else:
        text = str(event.get("text") or "")
        said = f"Text {text!r} entered in {tag}."
    typed: dict[str, Any] = {"selector": selector, "text": text}
    if event.get("enter"):
        typed["press_enter"] = True
        said += " Pressed Enter."
    return Action("enter_text", typed, said, url, observation)
