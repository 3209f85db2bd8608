"""Per-request tokens (CSRF tokens, nonces) kept out of skills: a value the server made for
one page view is stale by the next run, and a live token must not sit in a module or a
store row either.

A query value is a token when its parameter is named like one (nonce, token, csrf, xsrf,
``_wpnonce``, ``__FORM_TOKEN``...) or when it looks random (a long run of letters and
digits, or hex) and the command does not say it. A skill never opens a URL that carries
one (it ends there, saying why, see :func:`refused_url`); the start page, the pages a step
lands on and the elements recorded keep their URLs without it (:func:`without_tokens`);
a hidden field, where sites keep such tokens, is never typed into by a skill.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from browser_agent.harvest.plan import SkillPlan

_TOKEN_NAME = re.compile(
    r"nonce|token|csrf|xsrf|authenticity|sesskey|signature|^sig$|^_?hash$", re.IGNORECASE
)
_RANDOM = re.compile(r"[A-Za-z0-9_\-+/=.~]{24,}")
_HEX = re.compile(r"[0-9a-fA-F]{16,}")
_URL_ATTRIBUTES = ("href", "action", "src", "formaction")


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


def without_tokens(plan: SkillPlan) -> SkillPlan:
    """``plan`` with no token in any URL it keeps; NotHarvestable when a step types into a
    hidden field (where sites keep their CSRF tokens)."""
    from browser_agent.harvest.plan import NotHarvestable, Param

    command = plan.command
    plan.start_url = strip_tokens(plan.start_url, command)
    plan.end_url = strip_tokens(plan.end_url, command)
    for step in plan.steps:
        for target in step.targets.values():
            if target.attributes.get("type", "").lower() == "hidden":
                raise NotHarvestable(
                    f"{plan.source}: step {step.primitive} acts on the hidden field "
                    f"{target.attributes.get('name', '')!r}; a skill never types a page's "
                    "hidden values (per-request tokens live there)"
                )
            for key in _URL_ATTRIBUTES:
                if key in target.attributes:
                    target.attributes[key] = strip_tokens(target.attributes[key], command)
        if step.navigated_to:
            step.navigated_to = strip_tokens(step.navigated_to, command)
        url = step.arguments.get("url")
        if isinstance(url, Param) and isinstance(url.example, str):
            url.example = url.said = strip_tokens(url.example, command)
    return plan
