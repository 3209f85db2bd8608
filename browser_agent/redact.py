"""Removing secrets (passwords typed into password fields, configured and given secrets)
from anything written down or printed.

A secret can reach text inside an address (a login form sent by GET puts the password in
the query), where the browser writes it URL-encoded (``hunter+2``, ``hunter%202``): every
such form is masked too. In an address, a secret whose name is known becomes its
``{NAME}`` placeholder, so a skill keeps the placeholder its secret fills; elsewhere, and
for a typed value with no name, the mask stands in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

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
