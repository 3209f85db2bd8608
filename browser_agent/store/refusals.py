"""Why a PostgreSQL connection failed, in a few words, from what the server or libpq said:
for the one line a store that cannot be opened is reported with (passwords never appear
in these messages)."""

from __future__ import annotations

import re

#: What a PostgreSQL server or libpq says when a connection fails, and how we say it.
#: Each pattern is searched in the driver's message; the first that matches is used.
_REFUSALS: tuple[tuple[str, str], ...] = (
    (r'database "(?P<name>[^"]*)" does not exist', "the server has no database {name!r}"),
    (
        r'password authentication failed for user "(?P<name>[^"]*)"',
        "the server refused user {name!r}: wrong password or unknown user",
    ),
    (r'role "(?P<name>[^"]*)" does not exist', "the server has no user {name!r}"),
    (r"no password supplied", "the server asks for a password and the URL gives none"),
    (
        r"Connection refused",
        "nothing accepts connections at {address} (connection refused): "
        "is the PostgreSQL server running there?",
    ),
    (
        r"failed to resolve host|could not translate host name",
        "the host {host!r} is not known",
    ),
    (r"timeout expired|timed out", "no answer from {address} (timed out)"),
)


def connection_refusal(host: str | None, port: int | None, said: str) -> str:
    """Why the connection to the server at ``host`` and ``port`` (as the store URL names
    them) failed, from the driver's message."""
    place = {"host": host or "localhost", "address": _address(host, port)}
    for pattern, reason in _REFUSALS:
        found = re.search(pattern, said)
        if found:
            return reason.format(**place, **found.groupdict())
    return first_line(said)


def _address(host: str | None, port: int | None) -> str:
    """``host:port`` of a server (the local socket when the URL names no host)."""
    if not host:
        return "the local server's socket"
    return f"{host}:{port or 5432}"


def first_line(said: str) -> str:
    """The driver's message without its connection preamble, on one line."""
    text = re.sub(r"^connection failed: (connection to server at .*? failed: )?", "", said.strip())
    text = re.sub(r"^FATAL:\s+", "", text)
    return " ".join(text.split()) or "the connection failed"
