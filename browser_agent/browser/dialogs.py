"""JavaScript dialogs: alerts are accepted; confirm, prompt and leave-page dialogs are
dismissed unless the command or the settings say to accept them. Either way the tool
answer of the action that raised one says what it said and what was done with it."""

from __future__ import annotations

import re

from playwright.async_api import Dialog

# How a tool answer reports a dialog it answered; the harvester reads the choice back.
ANSWERED = re.compile(
    r"A (confirm|prompt|beforeunload) dialog said (?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"); "
    r"it was (accepted|dismissed)"
)


async def answer_dialog(dialog: Dialog, accept: bool) -> str:
    """Accept an alert, and any other dialog when ``accept``; dismiss the others. The
    sentence that tells the planner what the dialog said and what happened to it."""
    article = "An" if dialog.type[:1] in "aeiou" else "A"
    said = f"{article} {dialog.type} dialog said {dialog.message!r}"
    if dialog.type == "alert":
        await dialog.accept()
        return f"{said}; it was accepted (an alert only informs)."
    if accept:
        await dialog.accept()
        return f"{said}; it was accepted, as the command or the settings say to."
    await dialog.dismiss()
    return (
        f"{said}; it was dismissed (Cancel): dialogs that ask are dismissed unless the "
        "command says to confirm them."
    )
