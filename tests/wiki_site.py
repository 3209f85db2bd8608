"""A small wiki on 127.0.0.1 whose flows pass through the application's own links, as a
person meets them: "Log in" on the front page (shown only while logged out), "Edit this
page" on a page (shown only there), a search whose results are the pages holding the
term, a page's "History", a "New page" link on the front page to a form (Title, Text,
"Create page"), and a "Delete this page" button on a page that asks to confirm on a page
of its own. The front page may sit elsewhere (``front``), "/" forwarding to it; its search form may
send options of its own (``search_options``), which the results ignore. With
``sections``, every page opens with a menu of sections (Wiki, News, Help),
whose Wiki lists the pages. What the tests check is the wiki's own state: its pages and who
is logged in."""

from __future__ import annotations

import html
import secrets
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, quote, unquote, urlsplit

from tests.served_site import ServedSite

ACCOUNTS = {"ada": "Lovelace-1815", "bob": "Builder-99"}
SECTIONS = "".join(f'<a href="/section/{s.lower()}">{s}</a> ' for s in ("Wiki", "News", "Help"))


def _page(title: str, body: str, user: str | None, options: dict[str, str] | None = None) -> str:
    who = f"<p>Logged in as {html.escape(user)}</p>" if user else ""
    hidden = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in (options or {}).items()
    )
    search = (
        '<form action="/search" role="search"><input type="search" name="q" '
        f'aria-label="Search the wiki">{hidden}<button>Search</button></form>'
    )
    return (
        f"<!doctype html><html lang=en><title>{html.escape(title)} – Wiki</title><body>"
        f"<header>{search}{who}</header><main>{body}</main></body></html>"
    )


@dataclass
class WikiSite(ServedSite):
    """The wiki's state: its pages (title -> text) and live sessions (cookie -> user)."""

    pages: dict[str, str] = field(
        default_factory=lambda: {
            "Gamma": "Say hello to the gamma team.",
            "Delta": "Delta is the river plan.",
            "Epsilon": "Epsilon notes.",
        }
    )
    sessions: dict[str, str] = field(default_factory=dict)
    locked: set[str] = field(default_factory=set)  # pages shown without "Edit this page"
    sections: bool = False  # every page opens with the menu of sections
    front: str = "/"  # where the front page is: "/" forwards there, as many wikis do
    search_options: dict[str, str] = field(default_factory=dict)  # the search form's own

    def _user(self, request: BaseHTTPRequestHandler) -> str | None:
        cookie = SimpleCookie(request.headers.get("Cookie", ""))
        return self.sessions.get(cookie["wiki"].value) if "wiki" in cookie else None

    def _send(
        self, request: BaseHTTPRequestHandler, body: str, status: int = 200, **headers: str
    ) -> None:
        menu = f'<header><nav aria-label="Sections">{SECTIONS}</nav>'
        data = (body.replace("<header>", menu, 1) if self.sections else body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            request.send_header(name.replace("_", "-"), value)
        request.end_headers()
        request.wfile.write(data)

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(request.path)
        query = parse_qs(parts.query)
        user = self._user(request)
        if parts.path == "/" and self.front != "/":
            self._send(request, "", 302, Location=self.front)
        elif parts.path == self.front:
            login = "" if user else '<a href="/login">Log in</a>'
            login += ' <a href="/new">New page</a>'
            listed = "".join(f'<li><a href="/wiki/{quote(t)}">{t}</a></li>' for t in self.pages)
            body = f"<nav>{login}</nav><h1>Welcome</h1><ul>{listed}</ul>"
            self._send(request, _page("Front page", body, user, self.search_options))
        elif parts.path == "/login":
            form = (
                '<form method="post" action="/login"><label>User name <input name="user">'
                '</label><label>Password <input type="password" name="password"></label>'
                "<button>Sign in</button></form>"
            )
            self._send(request, _page("Log in", f"<h1>Log in</h1>{form}", user))
        elif parts.path == "/new":
            form = (
                '<form method="post" action="/new"><label>Title <input name="title"></label>'
                '<label>Text <textarea name="text"></textarea></label>'
                "<button>Create page</button></form>"
            )
            self._send(request, _page("New page", f"<h1>New page</h1>{form}", user))
        elif parts.path == "/search":
            term = (query.get("q") or [""])[0]
            found = [t for t, text in self.pages.items() if term.lower() in text.lower()]
            listed = "".join(f'<li><a href="/wiki/{quote(t)}">{t}</a></li>' for t in found)
            body = f'<h1>Results for "{html.escape(term)}"</h1><ul>{listed}</ul>'
            self._send(request, _page("Search", body, user))
        elif parts.path == "/section/wiki":
            listed = "".join(f'<li><a href="/wiki/{quote(t)}">{t}</a></li>' for t in self.pages)
            self._send(request, _page("Wiki", f"<h1>Pages</h1><ul>{listed}</ul>", user))
        elif parts.path.startswith("/section/"):
            body = f"<h1>{html.escape(parts.path[9:].title())}</h1><p>Nothing new.</p>"
            self._send(request, _page(parts.path[9:].title(), body, user))
        elif parts.path.startswith("/wiki/"):
            self._wiki(request, unquote(parts.path[6:]), query, user)
        else:
            self._send(request, _page("Not found", "<h1>Not found</h1>", user), 404)

    def _wiki(
        self, request: BaseHTTPRequestHandler, title: str, query: dict, user: str | None
    ) -> None:
        text = self.pages.get(title)
        if text is None:
            self._send(request, _page(title, f"<p>{title} does not exist.</p>", user), 404)
        elif query.get("action") == ["history"]:
            listed = f"<ul><li>Current version: {html.escape(text)}</li></ul>"
            body = f"<h1>History of {html.escape(title)}</h1>{listed}"
            self._send(request, _page(f"History of {title}", body, user))
        elif query.get("action") == ["delete"]:
            ask = (
                f"<h1>Delete {html.escape(title)}</h1><p>Are you sure you want to delete "
                f'{html.escape(title)}? This cannot be undone.</p><form method="post" '
                f'action="/wiki/{quote(title)}?action=delete"><button>Delete</button></form>'
                f'<a href="/wiki/{quote(title)}">Cancel</a>'
            )
            self._send(request, _page(f"Delete {title}", ask, user))
        elif query.get("action") == ["edit"]:
            form = (
                f'<form method="post" action="/wiki/{quote(title)}"><label>Text '
                f'<textarea name="text">{html.escape(text)}</textarea></label>'
                "<button>Save changes</button></form>"
            )
            self._send(request, _page(f"Editing {title}", f"<h1>Editing {title}</h1>{form}", user))
        else:
            edit = f'<a href="/wiki/{quote(title)}?action=edit">Edit this page</a>'
            edit = "" if title in self.locked else edit
            edit += f' <a href="/wiki/{quote(title)}?action=history">History</a>'
            delete = (
                f'<form action="/wiki/{quote(title)}"><input type="hidden" name="action" '
                'value="delete"><button>Delete this page</button></form>'
            )
            body = f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>{edit}{delete}"
            self._send(request, _page(title, body, user))

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(request.rfile.read(length).decode()).items()}
        path = urlsplit(request.path).path
        if path == "/login":
            user = form.get("user", "")
            if ACCOUNTS.get(user) != form.get("password"):
                failed = "<h1>Log in</h1><p>Wrong user name or password.</p>"
                self._send(request, _page("Log in", failed, None), 403)
                return
            session = secrets.token_hex(8)
            self.sessions[session] = user
            self._send(request, "", 303, Location="/", Set_Cookie=f"wiki={session}; Path=/")
        elif path == "/new" and form.get("title", "").strip():
            title = form["title"].strip()
            self.pages[title] = form.get("text", "")
            self._send(request, "", 303, Location=f"/wiki/{quote(title)}")
        elif path.startswith("/wiki/") and "action=delete" in urlsplit(request.path).query:
            self.pages.pop(unquote(path[6:]), None)
            self._send(request, "", 303, Location="/")
        elif path.startswith("/wiki/"):
            title = unquote(path[6:])
            self.pages[title] = form.get("text", "")
            self._send(request, "", 303, Location=f"/wiki/{quote(title)}")
        else:
            self._send(request, "", 404)
