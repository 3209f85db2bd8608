"""Removing secrets (passwords typed into password fields) from anything written down."""

from __future__ import annotations

import json
from typing import Any

MASK = "********"


def redact(value: Any, secrets: set[str]) -> Any:
    """``value`` with every occurrence of every secret masked, in strings at any depth."""
    if not secrets:
        return value
    if isinstance(value, str):
        for form in _forms(secrets):
            value = value.replace(form, MASK)
        return value
    if isinstance(value, list):
        return [redact(item, secrets) for item in value]
    if isinstance(value, dict):
        return {key: redact(item, secrets) for key, item in value.items()}
    return value


def _forms(secrets: set[str]) -> list[str]:
    """Each secret as typed and as it appears inside JSON text, longest first."""
    forms = {form for s in secrets if s for form in (s, json.dumps(s)[1:-1])}
    return sorted(forms, key=len, reverse=True)
