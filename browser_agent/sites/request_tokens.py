"""Per-request tokens (CSRF tokens, nonces) in URLs: a value the server made for one page
view is stale by the next run, and a live token must not sit in a skill's module or store
row either. Read by the harvester (what a plan keeps) and by replays (the end state).

A query value is a token when its parameter is named like one (nonce, token, csrf, xsrf,
``_wpnonce``, ``__FORM_TOKEN``...) or when it looks random (a long run of letters and
digits, or hex) and the command does not say it. A skill never opens a URL that carries
one (it ends there, saying why, see :func:`refused_url`); elsewhere a URL is kept without
it (:func:`strip_tokens`).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_TOKEN_NAME = re.compile(
    r"nonce|token|csrf|xsrf|authenticity|sesskey|signature|^sig$|^_?hash$", re.IGNORECASE
)
_RANDOM = re.compile(r"[A-Za-z0-9_\-+/=.~]{24,}")
_HEX = re.compile(r"[0-9a-fA-F]{16,}")


def is_token(name: str, value: str, command: str = "") -> bool:
    """Whether the query parameter ``name=value`` carries a per-request token."""
    if not value or (command and value.casefold() in command.casefold()):
        return False
    if _TOKEN_NAME.search(name):
        return True
    digits, letters = sum(c.isdigit() for c in value), sum(c.isalpha() for c in value)
    if _HEX.fullmatch(value):
        return digits > 0 and letters > 0
    return bool(_RANDOM.fullmatch(value)) and digits >= 3 and letters >= 3


def token_names(url: str, command: str = "") -> list[str]:
    """The query parameters of ``url`` that carry a token."""
    query = urlsplit(url).query
    return [n for n, v in parse_qsl(query, keep_blank_values=True) if is_token(n, v, command)]


def strip_tokens(url: str, command: str = "") -> str:
    """``url`` without its token parameters (the rest of it as it was)."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(n, v) for n, v in pairs if not is_token(n, v, command)]
    if len(kept) == len(pairs):
        return url
    return urlunsplit(parts._replace(query=urlencode(kept)))


def refused_url(url: str, first: bool, command: str = "") -> str | None:
    """Why a skill cannot open ``url`` later in its steps (it carries a token that will be
    stale), or None; the start page is opened without its tokens instead."""
    names = token_names(url, command)
    if first or not names:
        return None
    listed = ", ".join(names)
    path = urlsplit(url).path or "/"
    return (
        f"opening {path} would replay its per-request token ({listed}), which is stale by the "
        "next run; a skill reaches such a page by its link instead"
    )
