"""Which host names are this machine's own (loopback), for ``serve`` and the console's
``Host`` check; only the standard library, so ``serve --help`` stays fast."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
