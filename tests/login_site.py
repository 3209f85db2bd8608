"""A small login-protected notes site on 127.0.0.1 for the tests of kept logins: a form
login with a fresh CSRF token in a hidden field on every form, a session cookie the test
can expire (:meth:`NotesSite.expire_sessions`), and a landing page whose URL carries a
per-request nonce. What the site's state holds (the notes saved) is what tests check."""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.served_site import ServedSite

USER = "ada"
PASSWORD = "Corr3ct-Horse-Battery"


@dataclass
class NotesSite(ServedSite):
    """The site's state: live sessions, CSRF tokens issued, nonces issued, notes saved."""

    sessions: set[str] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)
    nonces: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    logins: int = 0
    renamed: bool = False  # the note form's button renamed, as by an upgrade

    def expire_sessions(self) -> None:
        """Every session cookie given so far stops working, as after a server's timeout."""
        self.sessions.clear()

    def issued(self) -> list[str]:
        """Every per-request value the site gave out (CSRF tokens and nonces)."""
        return [*self.tokens, *self.nonces]

    def _token(self) -> str:
        token = secrets.token_hex(20)
        self.tokens.add(token)
        return token

    def _logged_in(self, handler: BaseHTTPRequestHandler) -> bool:
        cookie = SimpleCookie(handler.headers.get("Cookie", ""))
        return "sid" in cookie and cookie["sid"].value in self.sessions

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        if path == "/login":
            return _page(handler, "Log in", _login_form(self._token()))
        if not self._logged_in(handler):
            return _redirect(handler, f"/login?next={path}")
        if path == "/home":
            listed = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
            return _page(
                handler,
                "Your notes",
                f'<p>Logged in as {USER}</p><a href="/notes/new">New note</a><ul>{listed}</ul>',
            )
        if path == "/notes/new":
            return _page(handler, "New note", _note_form(self._token(), self.renamed))
        return _page(handler, "Not found", "<p>No such page</p>", 404)

    def _post(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0") or 0)
        fields = {k: v[0] for k, v in parse_qs(handler.rfile.read(length).decode()).items()}
        token = fields.get("csrf_token", "")
        if token not in self.tokens:
            return _page(handler, "Forbidden", "<p>The form has expired.</p>", 403)
        self.tokens.discard(token)  # one use each
        path = urlsplit(handler.path).path
        if path == "/login":
            if fields.get("username") != USER or fields.get("password") != PASSWORD:
                return _page(handler, "Log in", _login_form(self._token(), "Wrong password"))
            self.logins += 1
            sid = secrets.token_urlsafe(24)
            self.sessions.add(sid)
            nonce = secrets.token_hex(16)
            self.nonces.append(nonce)
            return _redirect(handler, f"/home?nonce={nonce}", f"sid={sid}; Path=/; HttpOnly")
        if path == "/notes" and self._logged_in(handler):
            self.notes.append(fields.get("title", ""))
            return _redirect(handler, "/home")
        return _redirect(handler, "/login")


def _login_form(token: str, error: str = "") -> str:
    alert = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    return (
        f'{alert}<form method="post" action="/login">'
        f'<input type="hidden" name="csrf_token" value="{token}">'
        '<p><label for="username">Username</label> <input id="username" name="username"></p>'
        '<p><label for="password">Password</label> '
        '<input id="password" name="password" type="password"></p>'
        '<button id="log-in" type="submit">Log in</button></form>'
    )


def _note_form(token: str, renamed: bool = False) -> str:
    button = (
        '<button id="store" type="submit">Store</button>'
        if renamed
        else ('<button id="save" type="submit">Save</button>')
    )
    return (
        '<form method="post" action="/notes">'
        f'<input type="hidden" name="csrf_token" value="{token}">'
        '<p><label for="title">Title</label> <input id="title" name="title"></p>'
        f"{button}</form>"
    )


def _page(handler: BaseHTTPRequestHandler, title: str, body: str, status: int = 200) -> None:
    head = f"<!doctype html><html><head><title>{title}</title></head>"
    text = f"{head}<body><h1>{title}</h1>{body}</body></html>"
    data = text.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _redirect(handler: BaseHTTPRequestHandler, to: str, cookie: str | None = None) -> None:
    handler.send_response(303)
    handler.send_header("Location", to)
    if cookie:
        handler.send_header("Set-Cookie", cookie)
    handler.send_header("Content-Length", "0")
    handler.end_headers()
