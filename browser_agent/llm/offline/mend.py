"""Mending a failed action by another way of doing the same, as a person would: a field
the page swapped for another as one typed (a script's search box) gets its Enter where
the focus went. Anything else that failed ends the run."""

from __future__ import annotations

from browser_agent.llm.offline.history import Turn
from browser_agent.llm.offline.outcome import Action


def mend(turn: Turn) -> Action | None:
    """Another way to do what ``turn`` failed to do, or None when there is none: the text
    went in but Enter found its field gone, as the page replaced the field while it was
    typed into; the new one has the focus and the text, so Enter goes where the focus is."""
    if turn.marker is None or turn.name != "enter_text" or not turn.arguments.get("press_enter"):
        return None
    if "Could not press Enter" not in (turn.response or ""):
        return None
    note = "press Enter where the focus is (the page replaced the field as it was typed into)"
    marker = turn.marker
    return Action("press_key_combination", {"keys": "Enter"}, note, marker.phase, marker.kind)
