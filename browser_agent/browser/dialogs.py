"""JavaScript dialogs: alerts are accepted; confirm, prompt and leave-page dialogs are
dismissed unless the command or the settings say to accept them. Either way the tool
answer of the action that raised one says what it said and what was done with it."""

from __future__ import annotations

import re

from playwright.async_api import Dialog

# The command says to confirm or accept the dialog, or to press its OK: "delete the
# draft and confirm", "accept the prompt", "click OK". Cookie banners are not dialogs.
_ACCEPTS = re.compile(
    r"\b(?:confirm(?:s|ed|ing)?"
    r"|accept (?:the |any |every |all )?(?:dialog|prompt|pop-?up|alert|warning|confirmation)s?"
    r"|(?:click|press|answer|say|choose|hit) [\"']?ok(?:ay)?\b)",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|never|n't|without)\s+(?:\w+\s+)?$", re.IGNORECASE)

# How a tool answer reports a dialog it answered; the harvester reads the choice back.
ANSWERED = re.compile(
    r"A (confirm|prompt|beforeunload) dialog said (?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"); "
    r"it was (accepted|dismissed)"
)


def command_accepts_dialogs(command: str) -> bool:
    """Whether the command asks to confirm a dialog ("... and confirm", "click OK"),
    and not in the negative ("do not confirm")."""
    return any(
        not _NEGATED.search(command[: found.start()]) for found in _ACCEPTS.finditer(command)
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
