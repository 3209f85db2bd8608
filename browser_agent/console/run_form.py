"""What the console's start form gives besides the command: the secrets for this run
(NAME and value pairs, never written anywhere) and how much of it waits for the person."""

from __future__ import annotations

import re
from collections.abc import Mapping

from browser_agent.secrets import configured, key, placeholders

SECRET_ROWS = 3  # name and value pairs the form offers
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def form_secrets(fields: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """The secrets the form gives, by name; or why they cannot be used (a bad name, a
    name without a value). A value is never part of the reason."""
    found: dict[str, str] = {}
    for row in range(1, SECRET_ROWS + 1):
        name = fields.get(f"secret_name_{row}", "").strip().strip("{}")
        value = fields.get(f"secret_value_{row}", "")
        if not name and not value:
            continue
        if not _NAME.fullmatch(name):
            return {}, f"Secret {row}: a name is letters, digits and _ (as in {{NAME}})."
        if not value:
            return {}, f"The secret {key(name)} has no value."
        found[key(name)] = value
    return found, None


def missing_secrets(command: str, given: Mapping[str, str]) -> str | None:
    """Why ``command`` cannot run: it names a secret as ``{NAME}`` that neither the form
    nor the server's environment gives; None when it names none missing."""
    known = {**configured(), **given}
    wanted = [name for name in dict.fromkeys(placeholders(command)) if name not in known]
    if not wanted:
        return None
    named = ", ".join("{" + name + "}" for name in wanted)
    return f"The command names {named}: give its value under Secrets."


def review_mode(fields: Mapping[str, str]) -> tuple[bool, bool]:
    """(approve, every): weighty actions wait for the person; with "Review every
    action", every action that does something does."""
    every = fields.get("review") == "on"
    return every or fields.get("approve") == "on", every
