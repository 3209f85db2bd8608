"""Mending a failed action by another way of doing the same, as a person would: a menu's
name covered by its own transparent toggle is opened by that toggle; a field the page
swapped for another as one typed (a script's search box) gets its Enter where the focus
went. Anything else that failed ends the run."""

from __future__ import annotations

from browser_agent.llm.offline.history import Turn
from browser_agent.llm.offline.menus import covering_toggle
from browser_agent.llm.offline.outcome import Action


def mend(turn: Turn) -> Action | None:
    """Another way to do what ``turn`` failed to do, or None when there is none."""
    toggle = covering_toggle(turn)
    if toggle is not None:
        return toggle
    return _enter_where_the_focus_is(turn)


def _enter_where_the_focus_is(turn: Turn) -> Action | None:
    """The text went in but Enter found its field gone: the page replaced the field as it
    was typed into, and the new one has the focus (and the text)."""
    if turn.marker is None or turn.name != "enter_text" or not turn.arguments.get("press_enter"):
        return None
    if "Could not press Enter" not in (turn.response or ""):
        return None
    note = "press Enter where the focus is (the page replaced the field as it was typed into)"
    return Action("press_key_combination", {"keys": "Enter"}, note, turn.marker.phase,
                  turn.marker.kind)  # fmt: skip
