"""The console's access token and its protection against cross-site requests.

Every request needs the token: in the query (``?token=``, first visit: it is swapped for an
HttpOnly SameSite=Strict cookie and the URL loses it), a cookie, or an
``Authorization: Bearer`` header. A POST authenticated by the cookie must come from the
console's own origin (Origin and Sec-Fetch-Site) and carry the CSRF token of its form.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlencode

from starlette.requests import HTTPConnection, Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from browser_agent.errors import BrowserAgentError

COOKIE = "browser_agent_console"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE_FETCH = frozenset({"same-origin", "none"})  # "none": typed or bookmarked by the person
NO_TOKEN = "This console needs its token: open the URL that browser-agent serve printed."


def new_token() -> str:
    """A fresh random access token, as Jupyter prints one."""
    return secrets.token_urlsafe(32)


def csrf_token(token: str) -> str:
    """The CSRF token of the console's forms: derived from the access token, so it is known
    to pages the console served and to no other site."""
    return hmac.new(token.encode(), b"console-form", hashlib.sha256).hexdigest()


def _matches(given: str | None, token: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


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


class TokenGuard:
    """ASGI middleware: no page or API answers without the token; cookie-borne POSTs must
    be same-origin (the form's CSRF token is checked by ``checked_form``)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

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
        if _matches(_bearer(connection), self.token):
            state["by_cookie"] = False
            return None
        if _matches(connection.query_params.get("token"), self.token) and method in SAFE_METHODS:
            return self._set_cookie(connection)
        if not _matches(connection.cookies.get(COOKIE), self.token):
            return PlainTextResponse(NO_TOKEN, status_code=401)
        if method not in SAFE_METHODS and cross_site(connection):
            return PlainTextResponse("Refused: a cross-site request.", status_code=403)
        state["by_cookie"] = True
        return None

    def _set_cookie(self, connection: HTTPConnection) -> Response:
        """Swap the token in the URL for the cookie, so the address bar and history lose it."""
        rest = [(k, v) for k, v in connection.query_params.multi_items() if k != "token"]
        target = connection.url.path + (f"?{urlencode(rest)}" if rest else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
        return response


class CsrfRefused(BrowserAgentError):
    """A cookie-borne POST without the form's CSRF token."""


async def checked_form(request: Request, token: str) -> dict[str, str]:
    """The POSTed form's text fields, after checking its CSRF token when the request was
    authenticated by the cookie (a bearer header is no cross-site risk)."""
    form = await request.form()
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    if request.scope.get("state", {}).get("by_cookie", True):
        given = fields.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        if not _matches(given, csrf_token(token)):
            raise CsrfRefused
    return fields
