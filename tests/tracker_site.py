"""A small issue tracker on 127.0.0.1, shaped unlike the wiki: a "+ New issue" link on the
list of issues (each listed by its number and its subject) leads to a form with "Subject",
a "Description" editor box (contenteditable), a "Priority" drop-down and the owner's box,
disabled until "reassign to" is chosen, sent with "Submit"; an issue's page has an "Edit"
link to that form saved with "Update", and a "Delete issue" button that asks to confirm in
the browser's own dialog. What the tests check is the tracker's own state: its issues."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.served_site import ServedSite

PRIORITIES = ("Low", "Normal", "High")


@dataclass
class Issue:
    """One issue: its subject, description and priority."""

    subject: str
    description: str = ""
    priority: str = "Normal"
    assignee: str = ""


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><title>{html.escape(title)} · Tracker</title><body>"
        f'<nav><a href="/">Issues</a></nav><main>{body}</main></body></html>'
    )


def _form(action: str, issue: Issue, button: str) -> str:
    """The issue form: Subject, the Description editor box, Priority; sent with ``button``."""
    options = "".join(
        f"<option{' selected' if p == issue.priority else ''}>{p}</option>" for p in PRIORITIES
    )
    return (
        f'<form method="post" action="{action}" onsubmit="this.description.value = '
        "document.getElementById('description').innerText\">"
        f'<p><label>Subject <input name="subject" value="{html.escape(issue.subject)}">'
        "</label></p>"
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

    def by_subject(self, subject: str) -> Issue | None:
        return next((i for i in self.issues.values() if i.subject == subject), None)

    def _send(self, request: BaseHTTPRequestHandler, body: str, status: int = 200) -> None:
        data = body.encode()
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def _redirect(self, request: BaseHTTPRequestHandler, where: str) -> None:
        request.send_response(303)
        request.send_header("Location", where)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        parts = [p for p in urlsplit(request.path).path.split("/") if p]
        if not parts:
            rows = "".join(
                f'<tr><td><a href="/issues/{n}">#{n}</a></td>'
                f'<td><a href="/issues/{n}">{html.escape(i.subject)}</a></td>'
                f"<td>{i.priority}</td></tr>"
                for n, i in self.issues.items()
            )
            body = (
                '<h1>Issues</h1><p><a href="/issues/new">+ New issue</a></p>'
                f"<table><tr><th>#</th><th>Subject</th><th>Priority</th></tr>{rows}</table>"
            )
            self._send(request, _page("Issues", body))
        elif parts == ["issues", "new"]:
            form = _form("/issues", Issue(""), "Submit")
            self._send(request, _page("New issue", f"<h1>New issue</h1>{form}"))
        elif len(parts) >= 2 and parts[0] == "issues" and parts[1].isdigit():
            self._issue(request, int(parts[1]), parts[2:])
        else:
            self._send(request, _page("Not found", "<h1>Not found</h1>"), 404)

    def _issue(self, request: BaseHTTPRequestHandler, number: int, rest: list[str]) -> None:
        issue = self.issues.get(number)
        if issue is None:
            self._send(request, _page("Not found", "<h1>No such issue</h1>"), 404)
        elif rest == ["edit"]:
            form = _form(f"/issues/{number}", issue, "Update")
            self._send(request, _page(f"Edit #{number}", f"<h1>Edit #{number}</h1>{form}"))
        else:
            subject = html.escape(issue.subject)
            body = (
                f"<h1>{subject}</h1><p>{html.escape(issue.description)}</p>"
                f"<p>Priority: {issue.priority}</p>"
                f"<p>Assigned to: {issue.assignee or 'nobody'}</p>"
                f'<p><a href="/issues/{number}/edit">Edit</a></p>'
                f'<form method="post" action="/issues/{number}/delete" '
                "onsubmit=\"return confirm('Delete this issue for good?')\">"
                "<button>Delete issue</button></form>"
            )
            self._send(request, _page(f"#{number} {issue.subject}", body))

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(request.rfile.read(length).decode()).items()}
        parts = [p for p in urlsplit(request.path).path.split("/") if p]
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
            self._send(request, _page("Not found", "<h1>Not found</h1>"), 404)
