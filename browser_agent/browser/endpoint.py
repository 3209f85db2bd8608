"""Which protocol a remote browser's address speaks: Chrome DevTools (CDP) or a Playwright
server. Both can be a bare ``ws://HOST:PORT``, so such an address is asked for Chrome's
``/json/version``: a DevTools port answers it, a Playwright server does not."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

PROBE_TIMEOUT_S = 3.0


def cdp_address(endpoint: str) -> str | None:
    """The address to give ``connect_over_cdp`` when ``endpoint`` is a DevTools one, else
    None (a Playwright server, for ``connect``)."""
    parts = urlsplit(endpoint)
    if parts.scheme in ("http", "https") or "/devtools/" in parts.path:
        return endpoint
    if parts.scheme in ("ws", "wss") and parts.path in ("", "/") and not parts.query:
        web = "https" if parts.scheme == "wss" else "http"
        address = f"{web}://{parts.netloc}"
        if _answers_devtools(address):
            return address
    return None


def _answers_devtools(address: str) -> bool:
    """Whether ``address`` answers Chrome's ``/json/version`` with a debugger URL."""
    import urllib.error  # http.client and email: loaded only for an endpoint given
    import urllib.request

    try:
        with urllib.request.urlopen(f"{address}/json/version", timeout=PROBE_TIMEOUT_S) as reply:
            answer = json.loads(reply.read(65_536))
    except (OSError, ValueError, urllib.error.URLError):
        return False
    return isinstance(answer, dict) and "webSocketDebuggerUrl" in answer
