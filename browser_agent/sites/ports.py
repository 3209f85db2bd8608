"""Ports in options, settings and addresses: refused up front when out of range."""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_PORT = 65535
PORT_RULE = f"a port is a whole number from 0 to {MAX_PORT}"


def checked_port(url: str) -> str:
    """``url`` when its port (if it names one) is a port; ValueError saying so otherwise
    (without the URL, which may hold a password)."""
    try:
        _ = urlsplit(url).port
    except ValueError:
        raise ValueError(f"the address's port is out of range ({PORT_RULE})") from None
    return url
