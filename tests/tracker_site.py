"""A small issue tracker on 127.0.0.1, shaped unlike the wiki: a "+ New issue" link on the
list of issues (each listed by its number and its subject) leads to a form with "Subject",
a "Description" editor box (contenteditable), a "Priority" drop-down and the owner's box,
disabled until "reassign to" is chosen, sent with "Submit"; an issue's page has an "Edit"
link to that form saved with "Update", and a "Delete issue" button that asks to confirm in
the browser's own dialog. What the tests check is the tracker's own state: its issues.

With ``full``, it is shaped as a larger application is: "New issue" only in a "+" menu
of the header (a link to "#" that opens it), "Sign in" only in an "Account" menu (after
a "More" menu that a see-through checkbox over its name opens, which no click reaches), a
search box that the page swaps for another as one types (as script-made search boxes
are) whose results read "Bug #2 (New): Typo in footer" and offer to create an issue no
result matches (its form headed by the subject given, with no box for it), a login page
titled like any other with a "Login" button, and on an issue's page a sidebar, after the
issue's title, with an "Edit" of its own.

With ``admin``, the header has an "Admin" link to a page of the kinds of things it keeps
("Users", "Labels") beside the form of its own settings ("Name", "Apply changes"), as an
application's first page of administration often is; the labels' page lists them above a
form to add one ("Name", "Add").

With ``lang="de"``, its pages say ``lang="de"`` and every word of its own is German ("+ Neue
Meldung", "Betreff", "Beschreibung", "Absenden", "Bearbeiten", "Änderungen speichern",
"Meldung löschen"); what it does is the same."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, quote_plus, urlsplit

from tests.served_site import ServedSite

PRIORITIES = ("Low", "Normal", "High")
#: The tracker's own words in German, as its pages write them (``lang="de"``).
GERMAN = {
    "<html lang=en>": "<html lang=de>",
    "+ New issue": "+ Neue Meldung",
    "<h1>New issue": "<h1>Neue Meldung",
    "<h1>Issues</h1>": "<h1>Meldungen</h1>",
    "<th>Subject</th><th>Priority</th>": "<th>Betreff</th><th>Priorität</th>",
    "Subject <input": "Betreff <input",
    'aria-label="Description"': 'aria-label="Beschreibung"',
    "Priority <select": "Priorität <select",
    'value="Submit"': 'value="Absenden"',
    'value="Update"': 'value="Änderungen speichern"',
    "<h1>Edit #": "<h1>Bearbeiten #",
    ">Edit</a></p>": ">Bearbeiten</a></p>",
    "Delete this issue for good?": "Diese Meldung wirklich löschen?",
    "<button>Delete issue</button>": "<button>Meldung löschen</button>",
    "> leave as ": "> belassen bei ",
    "> reassign to<": "> neu zuweisen an<",
    'aria-label="new owner"': 'aria-label="neuer Besitzer"',
    "<p>Priority: ": "<p>Priorität: ",
    "<p>Assigned to: ": "<p>Zugewiesen an: ",
}
ACCOUNTS = {"ada": "Lovelace-1815"}
#: The full application's search box: swapped, as one types, for a new one that keeps the
#: text and the focus.
_SWAPPING = (
    "if (!this.dataset.swapped) { const box = document.createElement('input'); "
    "box.name = 'q'; box.dataset.swapped = '1'; box.value = this.value; "
    "this.replaceWith(box); box.focus(); }"
)


@dataclass
class Issue:
    """One issue: its subject, description and priority."""

    subject: str
    description: str = ""
    priority: str = "Normal"
    assignee: str = ""


def _page(title: str, body: str, header: str = "") -> str:
    return (
        f"<!doctype html><html lang=en><title>{html.escape(title)} · Tracker</title><body>"
        f'<nav><a href="/">Issues</a>{header}</nav><main>{body}</main></body></html>'
    )


def _opens(menu: str) -> str:
    """The script of a menu's toggle: show or hide the menu, and say which."""
    return (
        f"const m = document.getElementById('{menu}'); m.hidden = !m.hidden; "
        "this.setAttribute('aria-expanded', String(!m.hidden)); return false"
    )


def _header(user: str) -> str:
    """The full application's header: its "+" and "Account" menus, its search box, who is
    signed in."""
    new = (
        f'<a href="#" id="new-object" onclick="{_opens("new-menu")}">+</a>'
        '<div id="new-menu" hidden><a href="/issues/new">New issue</a></div>'
    )
    item = '<a href="/logout">Sign out</a>' if user else '<a href="/login">Sign in</a>'
    account = (
        '<button type="button" aria-haspopup="true" aria-expanded="false" '
        f'onclick="{_opens("account-menu")}">Account</button>'
        f'<div id="account-menu" hidden>{item}</div>'
    )
    search = (
        '<form action="/search"><label>Search: <input name="q" '
        f'oninput="{_SWAPPING}"></label></form>'
    )
    more = (  # a menu made with no script: a see-through checkbox over its name opens it
        "<style>#more-menu { display: none } #more:checked ~ #more-menu { display: block }"
        '</style><span style="position: relative">More<input type="checkbox" id="more" '
        'aria-haspopup="true" style="position: absolute; inset: 0; opacity: 0">'
        '<div id="more-menu"><a href="/">Help</a></div></span>'
    )
    who = f"<p>Logged in as {html.escape(user)}</p>" if user else ""
    return f" {new} {more} {account} {search}{who}"


_LOGIN = (
    '<h1>Tracker</h1>{said}<form method="post" action="/login">'
    '<p><label for="username">Login</label><input id="username" name="username"></p>'
    '<p><label for="password">Password</label>'
    '<input id="password" name="password" type="password"></p>'
    '<input type="submit" name="login" id="login-submit" value="Login"></form>'
)


def _form(action: str, issue: Issue, button: str, titled: bool = False) -> str:
    """The issue form: Subject, the Description editor box, Priority; sent with ``button``
    (``titled``: the subject is given, as the page's heading says, with no box for it)."""
    options = "".join(
        f"<option{' selected' if p == issue.priority else ''}>{p}</option>" for p in PRIORITIES
    )
    subject = html.escape(issue.subject)
    given = f'<input type="hidden" name="subject" value="{subject}">'
    box = f'<p><label>Subject <input name="subject" value="{subject}"></label></p>'
    return (
        f'<form method="post" action="{action}" onsubmit="this.description.value = '
        "document.getElementById('description').innerText\">"
        f"{given if titled else box}"
        '<p><div id="description" contenteditable="true" role="textbox" aria-multiline="true" '
        f'aria-label="Description">{html.escape(issue.description)}</div>'
        '<input type="hidden" name="description"></p>'
        f'<p><label>Priority <select name="priority">{options}</select></label></p>'
        '<p><label><input type="radio" name="action" value="leave" checked> leave as '
        f'{html.escape(issue.assignee or "nobody")}\'s</label> <label><input type="radio" '
        'name="action" value="reassign" onchange="this.form.assignee.disabled = false"> '
        'reassign to</label> <input name="assignee" aria-label="new owner" disabled></p>'
        f'<input type="submit" value="{button}"></form>'
    )


@dataclass
class TrackerSite(ServedSite):
    """The tracker's state: its issues by number."""

    issues: dict[int, Issue] = field(
        default_factory=lambda: {
            1: Issue("Login fails on Safari", "The form does not answer.", "High"),
            2: Issue("Typo in footer", "It says Copyrite.", "Low"),
        }
    )
    full: bool = False
    lang: str = "en"  # "de": its own words in German (see GERMAN)
    admin: bool = False  # an "Admin" link to the labels' list and its form
    labels: list[str] = field(default_factory=lambda: ["Bug", "Feature"])
    name: str = "Tracker"  # the tracker's own name, set on the Admin page
    sidebar: str = "Ask before a release."  # the sidebar's own text (full)

    def by_subject(self, subject: str) -> Issue | None:
        return next((i for i in self.issues.values() if i.subject == subject), None)

    def _show(
        self, request: BaseHTTPRequestHandler, title: str, body: str, status: int = 200
    ) -> None:
        """A page of the tracker (with the full application's header when ``full``)."""
        header = _header(_user(request)) if self.full else ""
        header += ' <a href="/admin">Admin</a>' if self.admin else ""
        self._send(request, _page(title, body, header), status)

    def _send(self, request: BaseHTTPRequestHandler, body: str, status: int = 200) -> None:
        if self.lang == "de":
            for english, german in GERMAN.items():
                body = body.replace(english, german)
        data = body.encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def _redirect(self, request: BaseHTTPRequestHandler, where: str, cookie: str = "") -> None:
        request.send_response(303)
        if cookie:
            request.send_header("Set-Cookie", cookie)
        request.send_header("Location", where)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        address = urlsplit(request.path)
        parts = [p for p in address.path.split("/") if p]
        asked = {k: v[0] for k, v in parse_qs(address.query).items()}
        if self.full and parts and parts[0] in ("search", "login", "logout", "sidebar"):
            self._full_get(request, parts, asked)
        elif self.admin and parts == ["admin"]:
            links = '<ul><li><a href="/admin/users">Users</a></li><li><a href="/admin/labels">'
            settings = (
                '<form method="post" action="/admin"><label>Name <input name="name" value="'
                f'{html.escape(self.name)}"></label><input type="submit" value="Apply changes">'
                "</form>"
            )
            body = f"<h1>Admin</h1>{links}Labels</a></li></ul>{settings}"
            self._show(request, "Admin", body)
        elif self.admin and parts == ["admin", "labels"]:
            listed = "".join(f"<li>{html.escape(label)}</li>" for label in self.labels)
            form = (
                '<form method="post" action="/admin/labels"><h2>Add a label</h2><label>Name '
                '<input name="name"></label><input type="submit" value="Add"></form>'
            )
            self._show(request, "Labels", f"<h1>Labels</h1><ul>{listed}</ul>{form}")
        elif not parts:
            rows = "".join(
                f'<tr><td><a href="/issues/{n}">#{n}</a></td>'
                f'<td><a href="/issues/{n}">{html.escape(i.subject)}</a></td>'
                f"<td>{i.priority}</td></tr>"
                for n, i in self.issues.items()
            )
            new = "" if self.full else '<p><a href="/issues/new">+ New issue</a></p>'
            body = (
                f"<h1>Issues</h1>{new}"
                f"<table><tr><th>#</th><th>Subject</th><th>Priority</th></tr>{rows}</table>"
            )
            self._show(request, "Issues", body)
        elif parts == ["issues", "new"]:
            subject = asked.get("subject", "")  # the search's offer gives it
            form = _form("/issues", Issue(subject), "Submit", titled=bool(subject))
            heading = f"New issue: {html.escape(subject)}" if subject else "New issue"
            self._show(request, "New issue", f"<h1>{heading}</h1>{form}")
        elif len(parts) >= 2 and parts[0] == "issues" and parts[1].isdigit():
            self._issue(request, int(parts[1]), parts[2:])
        else:
            self._show(request, "Not found", "<h1>Not found</h1>", 404)

    def _full_get(
        self, request: BaseHTTPRequestHandler, parts: list[str], asked: dict[str, str]
    ) -> None:
        """The full application's own pages: search results, the login, the sidebar's form."""
        if parts == ["search"]:
            term = asked.get("q", "")
            found = [
                f'<li><a href="/issues/{n}">Bug #{n} (New): {html.escape(i.subject)}</a></li>'
                for n, i in self.issues.items()
                if term and term.lower() in i.subject.lower()
            ]
            offer = (
                f'<p>No issue matches. Create the issue "<a href="/issues/new?subject='
                f'{quote_plus(term)}">{html.escape(term)}</a>"?</p>'
            )
            results = f"<ul>{''.join(found)}</ul>" if found else offer
            self._show(request, "Search", f"<h2>Search</h2>{results}")
        elif parts == ["login"]:
            self._show(request, "Tracker", _LOGIN.format(said=""))
        elif parts == ["logout"]:
            self._redirect(request, "/", cookie="user=; Path=/; Max-Age=0")
        elif parts == ["sidebar", "edit"]:
            form = (
                '<form method="post" action="/sidebar"><p><label>Text <textarea name="text">'
                f"{html.escape(self.sidebar)}</textarea></label></p>"
                '<input type="submit" value="Save"></form>'
            )
            self._show(request, "Sidebar", f"<h1>Sidebar</h1>{form}")
        else:
            self._show(request, "Not found", "<h1>Not found</h1>", 404)

    def _issue(self, request: BaseHTTPRequestHandler, number: int, rest: list[str]) -> None:
        issue = self.issues.get(number)
        if issue is None:
            self._show(request, "Not found", "<h1>No such issue</h1>", 404)
        elif rest == ["edit"]:
            form = _form(f"/issues/{number}", issue, "Update")
            self._show(request, f"Edit #{number}", f"<h1>Edit #{number}</h1>{form}")
        else:
            subject = html.escape(issue.subject)
            aside = (
                f"<aside><h3>Sidebar</h3><p>{html.escape(self.sidebar)}</p>"
                '<a href="/sidebar/edit">Edit</a></aside>'
            )
            body = (
                f"<h1>{subject}</h1>{aside if self.full else ''}"
                f"<p>{html.escape(issue.description)}</p>"
                f"<p>Priority: {issue.priority}</p>"
                f"<p>Assigned to: {issue.assignee or 'nobody'}</p>"
                f'<p><a href="/issues/{number}/edit">Edit</a></p>'
                f'<form method="post" action="/issues/{number}/delete" '
                "onsubmit=\"return confirm('Delete this issue for good?')\">"
                "<button>Delete issue</button></form>"
            )
            self._show(request, f"#{number} {issue.subject}", body)

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(request.rfile.read(length).decode()).items()}
        parts = [p for p in urlsplit(request.path).path.split("/") if p]
        if self.full and parts == ["login"]:
            user, password = form.get("username", ""), form.get("password", "")
            if user and ACCOUNTS.get(user) == password:
                self._redirect(request, "/", cookie=f"user={user}; Path=/")
            else:
                said = "<p>Invalid user or password</p>"
                self._show(request, "Tracker", _LOGIN.format(said=said), 401)
            return
        if self.admin and parts == ["admin"]:
            self.name = form.get("name", "").strip()
            self._redirect(request, "/admin")
            return
        if self.admin and parts == ["admin", "labels"]:
            self.labels.append(form.get("name", "").strip())
            self._redirect(request, "/admin/labels")
            return
        if self.full and parts == ["sidebar"]:
            self.sidebar = form.get("text", "").strip()
            self._redirect(request, "/")
            return
        sent = Issue(
            form.get("subject", "").strip(),
            form.get("description", "").strip(),
            form.get("priority", "Normal"),
            form.get("assignee", ""),
        )
        if "assignee" not in form and len(parts) == 2 and parts[1].isdigit():
            sent.assignee = self.issues.get(int(parts[1]), sent).assignee  # left as it was
        if parts == ["issues"] and sent.subject:
            number = max(self.issues, default=0) + 1
            self.issues[number] = sent
            self._redirect(request, f"/issues/{number}")
        elif len(parts) == 3 and parts[2] == "delete" and parts[1].isdigit():
            self.issues.pop(int(parts[1]), None)
            self._redirect(request, "/")
        elif len(parts) == 2 and parts[1].isdigit() and int(parts[1]) in self.issues:
            self.issues[int(parts[1])] = sent
            self._redirect(request, f"/issues/{parts[1]}")
        else:
            self._show(request, "Not found", "<h1>Not found</h1>", 404)


def _user(request: BaseHTTPRequestHandler) -> str:
    """Who the request's cookie says is signed in ("" for nobody)."""
    cookie = SimpleCookie(request.headers.get("Cookie") or "")
    user = cookie["user"].value if "user" in cookie else ""
    return user if user in ACCOUNTS else ""
