"""Secrets out of band: values the model never sees, named in commands as ``{NAME}``, and
masked in anything written down or printed.

A secret comes from ``--secret NAME=VALUE``, ``--secret NAME=env:VAR`` or a
``BROWSER_AGENT_SECRET_<NAME>`` variable; a value the command itself gives after a word
such as "password" or "PIN" becomes one too, and the command keeps only its placeholder.
The primitives put the value in when they type (:func:`filled`); everything written down
is masked with the set of values (:func:`redact`), passwords typed into password fields
among them.

A secret can reach text inside an address (a login form sent by GET puts the password in
the query), where the browser writes it URL-encoded (``hunter+2``, ``hunter%202``): every
such form is masked too. In an address, a secret whose name is known becomes its
``{NAME}`` placeholder, so a skill keeps the placeholder its secret fills; elsewhere, and
for a typed value with no name, the mask stands in.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

from browser_agent.errors import UserError

ENV_PREFIX = "BROWSER_AGENT_SECRET_"

#: Help of every command's ``--secret`` option.
OPTION_HELP = (
    "A secret the command names as {NAME}: NAME=VALUE or NAME=env:VARIABLE (repeatable; "
    f"also {ENV_PREFIX}NAME). The model sees only the placeholder."
)

#: ``{NAME}``: a placeholder for a secret (names are matched without regard to case).
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

#: Words after which a command gives a secret value ("with password hunter2").
_SECRET_WORDS = re.compile(
    r"\b(?P<word>password|passcode|passphrase|pin|token|api[ _-]?key|secret)\b"
    r"(?:\s*(?:is|=|:|of)\s*|\s+)"
    r"(?P<value>\"[^\"]+\"|'[^']+'|[^\s\"']+)",
    re.IGNORECASE,
)

#: What follows a secret word without being a value ("the password field", "PIN and").
_NOT_VALUES = frozenset(
    (
        "a",
        "an",
        "and",
        "as",
        "at",
        "box",
        "by",
        "field",
        "fields",
        "for",
        "form",
        "from",
        "in",
        "input",
        "into",
        "is",
        "it",
        "link",
        "manager",
        "of",
        "on",
        "or",
        "page",
        "reset",
        "the",
        "to",
        "textbox",
        "with",
        "you",
        "your",
    )
)


class SecretError(UserError, ValueError):
    """A secret option or placeholder the agent cannot use; the message says which."""


def key(name: str) -> str:
    """The name secrets are kept under: upper case, so ``{password}`` finds PASSWORD."""
    return name.upper()


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secrets set as ``BROWSER_AGENT_SECRET_<NAME>`` variables."""
    environ = os.environ if environ is None else environ
    return {
        key(name[len(ENV_PREFIX) :]): value
        for name, value in environ.items()
        if name.startswith(ENV_PREFIX) and len(name) > len(ENV_PREFIX) and value
    }


def from_options(options: list[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secrets given as ``NAME=VALUE`` or ``NAME=env:VAR`` (the value of variable VAR)."""
    environ = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for option in options:
        name, equals, value = option.partition("=")
        name = name.strip()
        if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise SecretError(
                f"--secret takes NAME=VALUE or NAME=env:VARIABLE (NAME in letters, digits and "
                f"_), got {name or option[:20]!r}"
            )
        if value.startswith("env:"):
            variable = value[4:]
            if not environ.get(variable):
                raise SecretError(f"--secret {name}=env:{variable}: the variable is not set")
            value = environ[variable]
        if not value:
            raise SecretError(f"--secret {name}= has no value")
        found[key(name)] = value
    return found


def configured(options: list[str] | None = None) -> dict[str, str]:
    """Every secret the user configured: variables, then ``--secret`` options over them."""
    return {**from_environment(), **from_options(options or [])}


def masked_command(command: str, secrets: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The command with every secret value it holds replaced by its placeholder, and the
    secrets it gave itself ("with password hunter2" -> "with password {PASSWORD}")."""
    for name, value in sorted(secrets.items(), key=lambda item: -len(item[1])):
        command = command.replace(value, "{" + name + "}")
    given: dict[str, str] = {}

    def replace(found: re.Match[str]) -> str:
        raw = found["value"]
        value = raw[1:-1] if raw[0] in "\"'" and raw[-1] == raw[0] else raw.rstrip(".,;!?")
        if PLACEHOLDER.fullmatch(value) or value.lower() in _NOT_VALUES or not value:
            return found[0]
        word = re.sub(r"[ _-]+", "_", found["word"]).upper()
        name, number = word, 1
        while name in given or (name in secrets and secrets[name] != value):
            number += 1
            name = f"{word}_{number}"
        given[name] = value
        start = found.start("value") - found.start()
        return found[0][:start] + "{" + name + "}" + raw[len(raw.rstrip(".,;!?")) :]

    return _SECRET_WORDS.sub(replace, command), given


def placeholders(text: str) -> list[str]:
    """The secret names ``text`` holds as placeholders, in order."""
    return [key(name) for name in PLACEHOLDER.findall(text)]


def missing(arguments: Mapping[str, object], secrets: Mapping[str, str]) -> list[str]:
    """Names of the secrets that ``arguments`` are placeholders for but nobody configured."""
    wanted = [
        key(found[1])
        for value in arguments.values()
        if isinstance(value, str) and (found := PLACEHOLDER.fullmatch(value))
    ]
    return sorted({name for name in wanted if name not in secrets})


def unconfigured_in(command: str, secrets: Mapping[str, str]) -> None:
    """A command that names a secret as ``{NAME}`` nobody configured is the user's
    mistake, said before the browser starts (SecretError: one line, exit code 2) rather
    than once the run reaches the field to type it in."""
    for name in placeholders(command):
        if name not in secrets:
            raise SecretError(
                f"the command names the secret {{{name}}}, which is not configured: "
                f"{how_to_set(name)}"
            )


def how_to_set(name: str) -> str:
    """Where a missing secret can come from, in a few words."""
    return f"set {ENV_PREFIX}{name} or pass --secret {name}=VALUE"


def filled(text: str, secrets: Mapping[str, str]) -> str:
    """``text`` with the value of every configured secret it names as ``{NAME}``.

    A text that is nothing but a placeholder must be a secret: an unknown one raises
    SecretError rather than typing the braces. Elsewhere unknown braces are plain text."""
    whole = PLACEHOLDER.fullmatch(text)
    if whole and key(whole[1]) not in secrets:
        name = key(whole[1])
        raise SecretError(f"the secret {name} is not configured: {how_to_set(name)}")
    return PLACEHOLDER.sub(lambda found: secrets.get(key(found[1]), found[0]), text)


#: A placeholder as an address holds it: as written, or with its braces percent-encoded.
_ADDRESS_PLACEHOLDER = re.compile(r"(?:\{|%7[Bb])([A-Za-z_][A-Za-z0-9_]*)(?:\}|%7[Dd])")


def filled_address(url: str, secrets: Mapping[str, str]) -> str:
    """``url`` with each configured secret it names as a placeholder (a skill's address
    of a login sent by GET) replaced by its value, percent-encoded: what the site is sent.
    Unknown placeholders stay as they are."""

    def value(found: re.Match[str]) -> str:
        name = key(found[1])
        return quote(secrets[name], safe="") if name in secrets else found[0]

    return _ADDRESS_PLACEHOLDER.sub(value, url)


MASK = "********"

#: An absolute address inside text (up to the first space, quote or angle bracket).
_ADDRESS = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>]+")


def redact(value: Any, secrets: set[str], named: Mapping[str, str] | None = None) -> Any:
    """``value`` with every occurrence of every secret masked, in strings at any depth;
    inside an address a secret of ``named`` (name to value) becomes its placeholder."""
    if not secrets and not named:
        return value
    if isinstance(value, str):
        if named:
            value = _ADDRESS.sub(lambda found: masked_address(found[0], (), named), value)
        for form in _forms({*secrets, *(named or {}).values()}):
            value = value.replace(form, MASK)
        return value
    if isinstance(value, list):
        return [redact(item, secrets, named) for item in value]
    if isinstance(value, dict):
        return {key: redact(item, secrets, named) for key, item in value.items()}
    return value


def masked_address(
    address: str, secrets: Iterable[str], named: Mapping[str, str] | None = None
) -> str:
    """``address`` (absolute or not) with each secret it holds in any of its forms (path,
    query, fragment, userinfo; as typed or URL-encoded) masked: a secret of ``named`` by its
    ``{NAME}`` placeholder, any other by the mask."""
    names = {value: name for name, value in (named or {}).items() if value}
    values = sorted({*names, *(s for s in secrets if s)}, key=len, reverse=True)
    for value in values:
        stand_in = "{" + names[value] + "}" if value in names else MASK
        for form in sorted(_address_forms(value), key=len, reverse=True):
            address = address.replace(form, stand_in)
    return address


def _address_forms(value: str) -> set[str]:
    """How an address may write ``value``: as it is, percent-encoded as a path or a query
    value does it, and with ``+`` for spaces as a form does."""
    return {value, quote(value), quote(value, safe=""), quote_plus(value), quote_plus(value, "/")}


def _forms(secrets: set[str]) -> list[str]:
    """Each secret as typed, as it appears inside JSON text and as an address writes it,
    longest first."""
    forms = {form for s in secrets if s for form in (json.dumps(s)[1:-1], *_address_forms(s))}
    return sorted(forms, key=len, reverse=True)
