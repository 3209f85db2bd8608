"""Whether a command says to confirm the dialogs its actions raise ("delete the draft and
confirm", "click OK"): a dialog that asks is dismissed otherwise (browser.dialogs)."""

from __future__ import annotations

import re

# The command says to confirm or accept the dialog, or to press its OK: "delete the
# draft and confirm", "accept the prompt", "click OK". Cookie banners are not dialogs.
_ACCEPTS = re.compile(
    r"\b(?:confirm(?:s|ed|ing)?"
    r"|accept (?:the |any |every |all )?(?:dialog|prompt|pop-?up|alert|warning|confirmation)s?"
    r"|(?:click|press|answer|say|choose|hit) [\"']?ok(?:ay)?\b)",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|never|n't|without)\s+(?:\w+\s+)?$", re.IGNORECASE)


def command_accepts_dialogs(command: str) -> bool:
    """Whether the command asks to confirm a dialog ("... and confirm", "click OK"),
    and not in the negative ("do not confirm")."""
    return any(
        not _NEGATED.search(command[: found.start()]) for found in _ACCEPTS.finditer(command)
    )
