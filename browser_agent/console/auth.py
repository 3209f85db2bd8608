"""The console's access token, its browser session, and its protection against
cross-site requests.

Scripts send the token as ``Authorization: Bearer``. A browser brings it once in the query
(``?token=``, the printed URL): the answer is a page that hands the console's session (a
random value kept in this process, never the token) to a service worker of the console's
origin and goes on without the token in the URL. The worker adds the session to the
console's own requests as a header and to nothing else; no cookie is set, so no other
server on the same host (another port of 127.0.0.1) ever receives a value that opens the
console. A request carried by the session must name this console as its ``Host``; a POST
must also come from the console's own origin (Origin and Sec-Fetch-Site) and carry the
CSRF token of its form.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
from urllib.parse import urlencode, urlsplit

from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from browser_agent.console.hosts import is_loopback
from browser_agent.errors import BrowserAgentError

SESSION_HEADER = "x-console-session"
SESSION_SCRIPT = "/console-session.js"  # the page side: registers the worker
WORKER_SCRIPT = "/console-worker.js"  # the service worker: adds the session header
PUBLIC_SCRIPTS = frozenset({SESSION_SCRIPT, WORKER_SCRIPT})  # generic code, no secret in them
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # "none": typed or bookmarked by the person
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
NO_TOKEN = "This console needs its token: open the URL that browser-agent serve printed."
OTHER_HOST = "Refused: a request for another host than this console."
SECURITY_HEADERS = {
    # only the console's own scripts, styles and images; no frame may hold its pages
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; frame-ancestors 'none'; "
    "form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make form posts say Origin: null
    "Cache-Control": "no-store",
}
SESSION_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>browser-agent console</title>
<script src="{script}" defer></script></head>
<body data-worker="{worker}" data-next="{next}"><p id="session-said">{said}</p></body>
</html>
"""


def new_token() -> str:
    """A fresh random access token, as Jupyter prints one (also used for the session)."""
    return secrets.token_urlsafe(32)


def csrf_token(token: str) -> str:
    """The CSRF token of the console's forms: derived from the access token, so it is known
    to pages the console served and to no other site."""
    return hmac.new(token.encode(), b"console-form", hashlib.sha256).hexdigest()


def _matches(given: str | None, expected: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), expected.encode())


def _bearer(connection: HTTPConnection) -> str | None:
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def cross_site(connection: HTTPConnection) -> bool:
    """True when the browser says the request comes from another site or origin."""
    fetch_site = connection.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in SAME_SITE_FETCH:
        return True
    origin = connection.headers.get("origin")
    if origin is None:
        return False
    own = f"{connection.url.scheme}://{connection.headers.get('host', '')}"
    return origin != own


def own_host(connection: HTTPConnection) -> bool:
    """True when the ``Host`` header names this console: its port, and its address (any
    loopback name for a loopback console; any name for one listening on every address)."""
    try:
        given = urlsplit(f"//{connection.headers.get('host', '')}")
        name, port = (given.hostname or "").lower(), given.port or 80
    except ValueError:
        return False
    server = connection.scope.get("server")
    if server is None:
        return bool(name)
    host, listening = str(server[0]).lower(), int(server[1])
    if port != listening or not name:
        return False
    if host in WILDCARD_HOSTS:
        return True
    if is_loopback(host):
        return is_loopback(name)
    return name == host.strip("[]")


class TokenGuard:
    """ASGI middleware: no page or API answers without the token or the console's session;
    session-borne requests must name this console's host, and their POSTs be same-origin
    (the form's CSRF token is checked by ``checked_form``)."""

    def __init__(self, app: ASGIApp, token: str, session: str) -> None:
        self.app = app
        self.token = token
        self.session = session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        response = self._refusal(connection, scope.get("method", "GET"))
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, connection: HTTPConnection, method: str) -> Response | None:
        """The answer that stops this request, or None when it may go on."""
        state = connection.scope.setdefault("state", {})
        if connection.url.path in PUBLIC_SCRIPTS and method in SAFE_METHODS:
            return None
        if _matches(_bearer(connection), self.token):
            state["by_browser"] = False
            return None
        if _matches(connection.query_params.get("token"), self.token) and method in SAFE_METHODS:
            return self._session_page(connection)
        if method not in SAFE_METHODS and cross_site(connection):
            return PlainTextResponse("Refused: a cross-site request.", status_code=403)
        if not _matches(connection.headers.get(SESSION_HEADER), self.session):
            return _no_token(connection)
        if not own_host(connection):
            return PlainTextResponse(OTHER_HOST, status_code=403)
        state["by_browser"] = True
        return None

    def _session_page(self, connection: HTTPConnection) -> Response:
        """The first visit's answer: a page that gives the session to the console's service
        worker, then opens the same address without the token (the history loses it)."""
        rest = [(k, v) for k, v in connection.query_params.multi_items() if k != "token"]
        target = "/" + connection.url.path.lstrip("/") + (f"?{urlencode(rest)}" if rest else "")
        worker = f"{WORKER_SCRIPT}?{urlencode({'session': self.session})}"
        body = SESSION_PAGE.format(
            script=SESSION_SCRIPT,
            worker=html.escape(worker),
            next=html.escape(target),
            said="Opening the console…",
        )
        headers = {**SECURITY_HEADERS, "Referrer-Policy": "no-referrer"}
        return HTMLResponse(body, headers=headers)


def _no_token(connection: HTTPConnection) -> Response:
    """401 in one line; a page opened in the browser gets it as HTML whose script retries
    once through the service worker (a reload that bypassed it, as Shift+Reload does)."""
    if connection.headers.get("sec-fetch-mode") != "navigate":
        return PlainTextResponse(NO_TOKEN, status_code=401)
    body = SESSION_PAGE.format(
        script=SESSION_SCRIPT, worker="", next="", said=html.escape(NO_TOKEN)
    )
    return HTMLResponse(body, status_code=401, headers=SECURITY_HEADERS)


class CsrfRefused(BrowserAgentError):
    """A session-borne POST without the form's CSRF token."""


async def checked_form(request: Request, token: str) -> dict[str, str]:
    """The POSTed form's text fields, after checking its CSRF token when the request was
    carried by the browser's session (a bearer header is no cross-site risk)."""
    form = await request.form()
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    if request.scope.get("state", {}).get("by_browser", True):
        given = fields.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        if not _matches(given, csrf_token(token)):
            raise CsrfRefused
    return fields
