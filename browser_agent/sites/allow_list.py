"""Allow-list entries read as host names, for the setting and the ``--allow-domain`` option."""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import suppress

_HOST = re.compile(r"^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(\.[a-z0-9_-]+)*)$")
ANY_SITE = "*"  # the entry that opens every site, the start site's boundary included


def domain_list(entries: str | Iterable[str]) -> tuple[str, ...]:
    """Allow-list entries as host names: ``Shop.Example``, ``*.shop.example`` and
    ``https://shop.example:8443/x`` all give ``shop.example`` (ports do not count); ``*``
    anywhere gives ``("*",)``, every site.

    Raises ValueError naming an entry that is not a domain name or IP address.
    """
    hosts: list[str] = []
    for given in [entries] if isinstance(entries, str) else entries:
        for part in given.split(","):
            entry = _host_of(part.strip().lower())
            if entry == ANY_SITE:
                return (ANY_SITE,)
            if not entry:
                continue
            if not _HOST.match(entry):
                raise ValueError(f"{part.strip()!r} is not a domain name or IP address")
            if entry not in hosts:
                hosts.append(entry)
    return tuple(hosts)


def _host_of(entry: str) -> str:
    """The host part of an entry that may carry a scheme, user, port or path."""
    if "://" in entry:
        entry = entry.split("://", 1)[1]
    entry = entry.split("/")[0].rsplit("@", 1)[-1]
    if not entry.startswith("["):
        entry = entry.split(":")[0]
    entry = entry.removeprefix("*.").strip(".")
    with suppress(UnicodeError):
        entry = entry.encode("idna").decode("ascii")
    return entry
