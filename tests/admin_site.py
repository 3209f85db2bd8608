"""A small site administration on 127.0.0.1, shaped as a content manager's dashboard is: a side
menu whose items ("Posts", "Users", "Settings") each have a fly-out of links ("All Users",
"Add New") kept above the page (``top: -1000em``) until the item is hovered, a top bar with
a bare "New" link that makes a post, and panels of their own on the first page: a welcome's
"Add a new page", a "Quick Draft" form ("Title", "Save Draft") and an "Events" form ("City",
"Submit"). "Users" lists the users (each a link to its page, with a "Delete User" button)
above an "Add New" link to a form ("Username", "Email", a "Website" scheme drop-down and
box, a "Role" drop-down, "Add New User"); "Settings" is a form of the site's own ("Site
Title", "Tagline", "Save Changes"); "Pages" lists the pages (each a link to its page, whose
"Options" hold an "Erase this page" button) and has an "Add New" form in two parts ("Title",
"Next", then "Content", "Save"); a new post is written in a contenteditable title. What the
tests check is the site's own state: its users, settings, pages and drafts."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, quote_plus, urlsplit

from tests.served_site import ServedSite

ROLES = ("subscriber", "author", "editor", "administrator")
_STYLE = """<style>
  nav li { position: relative; }
  nav li ul { position: absolute; top: -1000em; left: 10em; }
  nav li:hover ul { top: 0; }
</style>"""


def _menu(item: str, href: str, *links: tuple[str, str]) -> str:
    fly = "".join(f'<li><a href="{h}">{name}</a></li>' for name, h in links)
    return f'<li><a href="{href}">{item}</a><ul>{fly}</ul></li>'


_NAV = (
    '<header><a href="/admin/">Dashboard</a> <a href="/admin/post-new">New</a></header><nav><ul>'
    + _menu("Posts", "/admin/posts", ("All Posts", "/admin/posts"), ("Add New", "/admin/post-new"))
    + _menu("Users", "/admin/users", ("All Users", "/admin/users"), ("Add New", "/admin/user-new"))
    + _menu("Settings", "/admin/settings", ("General", "/admin/settings"))
    + "</ul></nav>"
)


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title} ‹ Field "
        f"Notes</title>{_STYLE}</head><body>{_NAV}<main>{body}</main></body></html>"
    )


@dataclass
class User:
    """One user of the site: login, email and role."""

    login: str
    email: str
    role: str
    website: str = ""


@dataclass
class AdminSite(ServedSite):
    """The administration; ``users``, ``settings`` and ``drafts`` are its state."""

    users: list[User] = field(
        default_factory=lambda: [User("admin", "admin@example.org", "administrator")]
    )
    settings: dict[str, str] = field(
        default_factory=lambda: {"title": "Field Notes", "tagline": "Counts by the marsh"}
    )
    drafts: list[str] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        path = urlsplit(request.path).path.rstrip("/")
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.path).query).items()}
        pages = {
            "/admin/user": lambda: self._user(query.get("login", "")),
            "/admin": self._dashboard,
            "/admin/users": self._users,
            "/admin/user-new": self._user_form,
            "/admin/settings": self._settings,
            "/admin/posts": lambda: _page("Posts", "<h1>Posts</h1><p>No posts yet.</p>"),
            "/admin/post-new": self._post_form,
            "/admin/pages": self._pages,
            "/admin/page": lambda: self._shown(query.get("title", "")),
            "/admin/page-new": lambda: self._page_form(query.get("title", "")),
            "/admin/page-options": lambda: self._page_options(query.get("title", "")),
        }
        page = pages.get(path)
        if page is None:
            request.send_error(404)
            return
        self._send(request, page())

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(request.rfile.read(length).decode()).items()}
        path = urlsplit(request.path).path
        if path == "/admin/user-new" and form.get("user_login") and form.get("role") in ROLES:
            site = f"{form['scheme']}{form['url']}" if form.get("url") else ""
            self.users.append(User(form["user_login"], form.get("email", ""), form["role"], site))
            where = "/admin/users?added=1"
        elif path == "/admin/user-delete" and self._named(form.get("login", "")):
            self.users = [u for u in self.users if u.login != form["login"]]
            where = "/admin/users?deleted=1"
        elif path == "/admin/page-new" and form.get("title") and "content" in form:
            self.pages[form["title"]] = form["content"]
            where = f"/admin/page?title={quote_plus(form['title'])}"
        elif path == "/admin/page-delete" and form.get("title") in self.pages:
            del self.pages[form["title"]]
            where = "/admin/pages?deleted=1"
        elif path == "/admin/settings":
            self.settings.update({k: form[k] for k in ("title", "tagline") if k in form})
            where = "/admin/settings?saved=1"
        elif path == "/admin/draft" and form.get("post_title"):
            self.drafts.append(form["post_title"])
            where = "/admin/"
        else:
            request.send_error(400)
            return
        request.send_response(303)
        request.send_header("Location", where)
        request.end_headers()

    @staticmethod
    def _send(request: BaseHTTPRequestHandler, body: str) -> None:
        data = body.encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def _dashboard(self) -> str:
        return _page(
            "Dashboard",
            "<h1>Dashboard</h1>"
            '<section><h2>Welcome</h2><a href="/admin/post-new">Write your first post</a> '
            '<a href="/admin/post-new?post_type=page">Add a new page</a></section>'
            '<section><h2>Quick Draft</h2><form method=post action="/admin/draft">'
            '<label>Title <input name="post_title"></label>'
            '<label>Content <textarea name="content"></textarea></label>'
            '<input type=submit value="Save Draft"></form></section>'
            '<section><h2>Events</h2><form onsubmit="return false">'
            '<label>City: <input name="city"></label><button type=submit>Submit</button>'
            "</form></section>",
        )

    def _users(self) -> str:
        rows = "".join(
            f'<tr><td><a href="/admin/user?login={quote_plus(u.login)}">{html.escape(u.login)}'
            f"</a></td><td>{html.escape(u.email)}</td>"
            f"<td>{u.role.capitalize()}</td></tr>"
            for u in self.users
        )
        return _page(
            "Users",
            '<h1>Users</h1><a href="/admin/user-new">Add New</a>'
            f"<table><thead><tr><th>Username</th><th>Email</th><th>Role</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>",
        )

    def _named(self, login: str) -> User | None:
        return next((u for u in self.users if u.login == login), None)

    def _user(self, login: str) -> str:
        user = self._named(login)
        if user is None:
            return _page("Not Found", "<h1>No such user</h1>")
        name = html.escape(user.login, quote=True)
        return _page(
            f"User {name}",
            f"<h1>User {name}</h1><p>{html.escape(user.email)}</p>"
            f'<form method=post action="/admin/user-delete"><input type=hidden name=login '
            f'value="{name}"><button>Delete User</button></form>',
        )

    def _user_form(self) -> str:
        options = "".join(f'<option value="{r}">{r.capitalize()}</option>' for r in ROLES)
        return _page(
            "Add New User",
            '<h1>Add New User</h1><form method=post action="/admin/user-new">'
            '<label>Username (required) <input name="user_login"></label>'
            '<label>Email (required) <input type=email name="email"></label>'
            '<label>First Name <input name="first_name"></label>'
            '<label for="scheme">Website</label><select id="scheme" name="scheme" '
            'title="Website"><option>https://</option><option>http://</option></select>'
            '<input name="url" title="Website">'
            f'<label>Role <select name="role">{options}</select></label>'
            '<input type=submit value="Add New User"></form>',
        )

    def _pages(self) -> str:
        listed = "".join(
            f'<li><a href="/admin/page?title={quote_plus(title)}">{html.escape(title)}</a></li>'
            for title in self.pages
        )
        return _page(
            "Pages", f'<h1>Pages</h1><a href="/admin/page-new">Add New</a><ul>{listed}</ul>'
        )

    def _shown(self, title: str) -> str:
        if title not in self.pages:
            return _page("Not Found", "<h1>No such page</h1>")
        kept = html.escape(title)
        options = f'<a href="/admin/page-options?title={quote_plus(title)}">Options</a>'
        return _page(kept, f"<h1>{kept}</h1>{options}<p>{html.escape(self.pages[title])}</p>")

    def _page_options(self, title: str) -> str:
        if title not in self.pages:
            return _page("Not Found", "<h1>No such page</h1>")
        kept = html.escape(title, quote=True)
        return _page(
            f"Options of {kept}",
            f'<h1>Options of {kept}</h1><form method=post action="/admin/page-delete">'
            f'<input type=hidden name=title value="{kept}"><button>Erase this page</button></form>',
        )

    def _page_form(self, title: str) -> str:
        """A new page in two parts: its title, then (with "Next") its content."""
        if not title:
            return _page(
                "New page",
                '<h1>New page</h1><form action="/admin/page-new"><label>Title <input '
                'name="title"></label><button>Next</button></form>',
            )
        kept = html.escape(title, quote=True)
        return _page(
            f"New page {kept}",
            f'<h1>New page {kept}</h1><form method=post action="/admin/page-new">'
            f'<input type=hidden name=title value="{kept}"><label>Content <textarea '
            'name="content"></textarea></label><button>Save</button></form>',
        )

    def _settings(self) -> str:
        title, tagline = (html.escape(self.settings[k], quote=True) for k in ("title", "tagline"))
        return _page(
            "General Settings",
            '<h1>General Settings</h1><form method=post action="/admin/settings">'
            f'<label>Site Title <input name="title" value="{title}"></label>'
            f'<label>Tagline <input name="tagline" value="{tagline}"></label>'
            '<input type=submit value="Save Changes"></form>',
        )

    def _post_form(self) -> str:
        return _page(
            "Add New Post",
            '<h1 contenteditable=true role=textbox aria-label="Add title"></h1>'
            '<div contenteditable=true role=textbox aria-label="Type text"></div>'
            "<button type=button>Publish</button>",
        )
