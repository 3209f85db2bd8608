"""Trac (PyPI, SQLite, Python): an issue tracker with a wiki, served by its own tracd
(started by ``trac_server.py``, which keeps Trac's collection after each request short).

The admin logs in by HTTP basic auth at /login once; Trac then keeps the login in its
``trac_auth`` cookie, which the storage state holds. The new look is the admin's
interface language switched to German in their preferences.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from scripts.apps import (
    App,
    Running,
    State,
    Task,
    Values,
    ensure_venv,
    free_port,
    spawn,
    stop,
    token,
    wait_until_up,
    words,
)

ADMIN = ("admin", "trac-admin-pw")
USERS = ("alice", "bob", "carol", "dave")
REQUIREMENTS = ["Trac==1.6", "Babel"]
SEED_TICKETS = [
    (f"{a.capitalize()} {b} report fails on {c}", f"Seen when the {b} {c} is open.", "somebody")
    for a, b, c in [
        ("amber", "garnet", "harbor"), ("basalt", "juniper", "lagoon"),
        ("cedar", "kestrel", "meadow"), ("delta", "nectar", "orchid"),
        ("ember", "pebble", "quartz"), ("falcon", "raven", "saffron"),
        ("glacier", "tundra", "umber"), ("indigo", "velvet", "willow"),
    ]
]  # fmt: skip

PAST_SPRINTS = [f"Sprint {n}" for n in range(1, 61)]


def install() -> Path:
    """Trac and Babel in their own virtualenv (once); its bin folder."""
    return ensure_venv("trac", REQUIREMENTS, "tracd")


def _db(app: Running) -> sqlite3.Connection:
    return sqlite3.connect(app.home / "env/db/trac.db", timeout=30)


def _rows(app: Running, sql: str, *args: object) -> list[tuple]:
    with closing(_db(app)) as db:
        return db.execute(sql, args).fetchall()


def snapshot(app: Running) -> State:
    """What the tasks change: tickets' main fields, comments, wiki pages, milestones."""
    return {
        "ticket": _rows(app, "SELECT id, summary, description, owner, status, priority, "
                        "milestone FROM ticket ORDER BY id"),
        "comment": _rows(app, "SELECT ticket, newvalue FROM ticket_change WHERE field='comment' "
                         "AND newvalue != '' "
                         "ORDER BY ticket, time"),
        "wiki": _rows(app, "SELECT name, version, text FROM wiki ORDER BY name, version"),
        "milestone": _rows(app, "SELECT name FROM milestone ORDER BY name"),
    }  # fmt: skip


def _login_cookie(url: str) -> str:
    """The trac_auth cookie Trac sets after a basic-auth login at /login."""
    secret = base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()).decode()

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None  # the cookie is on the redirect itself

    opener = urllib.request.build_opener(Keep)
    request = urllib.request.Request(f"{url}/login", headers={"Authorization": f"Basic {secret}"})
    try:
        response = opener.open(request, timeout=30)
    except urllib.error.HTTPError as error:  # the 303 to where the login came from
        response = error
    for header in response.headers.get_all("Set-Cookie") or []:
        name, _, rest = header.partition("=")
        if name.strip() == "trac_auth":
            return rest.split(";", 1)[0]
    raise RuntimeError(f"Trac gave no login cookie at {url}/login")


def _storage_state(path: Path, cookie: str) -> None:
    cookies = [{"name": "trac_auth", "value": cookie, "domain": "127.0.0.1", "path": "/",
                "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}]  # fmt: skip
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


@contextmanager
def start() -> Iterator[Running]:
    """A fresh Trac environment, seeded, served by tracd on 127.0.0.1; removed after."""
    bin_dir = install()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-trac-"))
    env = home / "env"
    admin = [str(bin_dir / "trac-admin"), str(env)]
    try:
        subprocess.run(
            [*admin, "initenv", "Field Office", "sqlite:db/trac.db"],
            check=True,
            capture_output=True,
        )
        with closing(sqlite3.connect(env / "db/trac.db")) as db, db:
            db.execute("INSERT INTO permission VALUES (?, 'TRAC_ADMIN')", (ADMIN[0],))
            for user in USERS:
                db.execute("INSERT INTO permission VALUES (?, 'TICKET_MODIFY')", (user,))
                db.execute("INSERT INTO session VALUES (?, 1, 0)", (user,))
                db.executemany(
                    "INSERT INTO session_attribute VALUES (?, 1, ?, ?)",
                    [(user, "name", user.capitalize()), (user, "email", f"{user}@example.org")],
                )
            db.executemany(  # past sprints, for the admin to clear away
                "INSERT INTO milestone (name, due, completed, description) VALUES (?, 0, 0, '')",
                [(name,) for name in PAST_SPRINTS],
            )
        subprocess.run(
            [str(bin_dir / "python"), "-I", str(Path(__file__).with_name("trac_seed.py")), str(env),
             json.dumps(SEED_TICKETS)],
            check=True, capture_output=True,
        )  # fmt: skip
        digest = base64.b64encode(hashlib.sha1(ADMIN[1].encode()).digest()).decode()
        (home / "htpasswd").write_text(f"{ADMIN[0]}:{{SHA}}{digest}\n")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = spawn(
            [str(bin_dir / "python"), "-I", str(Path(__file__).with_name("trac_server.py")),
             "-s", "-b", "127.0.0.1", "-p", str(port),
             f"--basic-auth=*,{home / 'htpasswd'},Trac", str(env)],
            home / "tracd.log",
        )  # fmt: skip
        try:
            wait_until_up(url, server)
            app = Running("trac", url, ADMIN, home, home / "admin-state.json", lambda: {})
            app.state = lambda: snapshot(app)
            _storage_state(app.storage_state, _login_cookie(url))
            yield app
        finally:
            stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def new_look(app: Running) -> str:
    """The admin's interface language set to German, as in Preferences > Language."""
    with closing(_db(app)) as db, db:
        db.execute(
            "INSERT OR REPLACE INTO session_attribute VALUES (?, 1, 'language', 'de')", (ADMIN[0],)
        )
    return "the admin's interface language set to German (Preferences > Language)"


# --- tasks ---------------------------------------------------------------------------


def _ticket_ids(app: Running) -> list[int]:
    return [row[0] for row in _rows(app, "SELECT id FROM ticket ORDER BY id")]


def gen_ticket(rng: random.Random, app: Running) -> Values:
    return {
        "summary": f"{words(rng, 2).capitalize()} sync stalls {token(rng)}",
        "description": f"After the {words(rng, 1)} upgrade the {words(rng, 1)} queue never drains.",
    }


def check_ticket(app: Running, v: Values, final_url: str | None) -> bool:
    found = _rows(app, "SELECT description FROM ticket WHERE summary = ?", v["summary"])
    return any(row[0].strip() == v["description"] for row in found)


async def do_ticket(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click("#mainnav >> text=New Ticket")
    await page.fill("#field-summary", v["summary"])
    await page.fill("#field-description", v["description"])
    await page.click("input[name=submit]")
    await page.wait_for_url("**/ticket/*")


def gen_search(rng: random.Random, app: Running) -> Values:
    summary = rng.choice(SEED_TICKETS)[0]
    return {"term": rng.choice(summary.split()[:3]).lower()}


def check_search(app: Running, v: Values, final_url: str | None) -> bool:
    """The page the run ended on is Trac's search page showing results for the term."""
    if not final_url:
        return False
    parts = urllib.parse.urlsplit(final_url)
    asked = urllib.parse.parse_qs(parts.query).get("q", [""])[0]
    if parts.path != "/search" or asked.strip().lower() != v["term"].lower():
        return False
    page = app.get(final_url)
    return 'id="results"' in page and v["term"].lower() in page.lower()


async def do_search(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.fill("#proj-search", v["term"])
    await page.press("#proj-search", "Enter")
    await page.wait_for_url("**/search?**")


def gen_assign(rng: random.Random, app: Running) -> Values:
    ticket = rng.choice(_ticket_ids(app))
    (owner,) = _rows(app, "SELECT owner FROM ticket WHERE id = ?", ticket)[0]
    return {"ticket": str(ticket), "owner": rng.choice([u for u in USERS if u != owner])}


def check_assign(app: Running, v: Values, final_url: str | None) -> bool:
    found = _rows(app, "SELECT owner FROM ticket WHERE id = ?", int(v["ticket"]))
    return bool(found) and found[0][0] == v["owner"]


async def do_assign(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/ticket/{v['ticket']}")
    await page.click("text=Modify Ticket")
    await page.check("#action_reassign")
    await page.fill("#action_reassign_reassign_owner", v["owner"])
    await page.click("#propertyform input[name=submit]")
    await page.wait_for_load_state()


def gen_comment(rng: random.Random, app: Running) -> Values:
    return {
        "ticket": str(rng.choice(_ticket_ids(app))),
        "comment": f"Reproduced on the {words(rng, 2)} build {token(rng)}",
    }


def check_comment(app: Running, v: Values, final_url: str | None) -> bool:
    found = _rows(
        app,
        "SELECT newvalue FROM ticket_change WHERE ticket = ? AND field = 'comment'",
        int(v["ticket"]),
    )
    return any(row[0].strip() == v["comment"] for row in found)


async def do_comment(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/ticket/{v['ticket']}")
    await page.fill("#comment", v["comment"])
    await page.click("#propertyform input[name=submit]")
    await page.wait_for_load_state()


def gen_wiki(rng: random.Random, app: Running) -> Values:
    name = "".join(w.capitalize() for w in words(rng, 2).split()) + token(rng).capitalize()
    return {"page": name, "text": f"The {words(rng, 2)} runbook lives here."}


def check_wiki(app: Running, v: Values, final_url: str | None) -> bool:
    found = _rows(
        app, "SELECT text FROM wiki WHERE name = ? ORDER BY version DESC LIMIT 1", v["page"]
    )
    return bool(found) and found[0][0].strip() == v["text"]


async def do_wiki(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/wiki/{v['page']}")
    await page.click("#modifypage input[type=submit]")
    await page.fill("#text", v["text"])
    await page.click("input[name=save]")
    await page.wait_for_url(f"**/wiki/{v['page']}")


def gen_milestone(rng: random.Random, app: Running) -> Values:
    return {"name": f"Release {words(rng, 1)} {rng.randint(2, 9)}.{rng.randint(0, 99)}"}


def check_milestone(app: Running, v: Values, final_url: str | None) -> bool:
    return bool(_rows(app, "SELECT 1 FROM milestone WHERE name = ?", v["name"]))


async def do_milestone(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click("#mainnav >> text=Admin")
    await page.click("#tabs >> text=Milestones")
    await page.fill("#name", v["name"])
    await page.click("#addmilestone input[name=add]")
    await page.wait_for_load_state()


def gen_unmilestone(rng: random.Random, app: Running) -> Values:
    left = [row[0] for row in _rows(app, "SELECT name FROM milestone WHERE name LIKE 'Sprint %'")]
    return {"name": rng.choice(sorted(left))}


def check_unmilestone(app: Running, v: Values, final_url: str | None) -> bool:
    return not _rows(app, "SELECT 1 FROM milestone WHERE name = ?", v["name"])


async def do_unmilestone(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/admin/ticket/milestones")
    await page.check(f"#milestone_table input[name=sel][value='{v['name']}']")
    await page.click("#milestone_table input[name=remove]")
    await page.wait_for_load_state()


TASKS = [
    Task("new-ticket", 'create a ticket titled "{summary}" with the description "{description}"',
         gen_ticket, check_ticket, do_ticket, frozenset({"ticket"})),
    Task("search", "search for {term}", gen_search, check_search, do_search),
    Task("assign", "assign ticket #{ticket} to {owner}", gen_assign, check_assign, do_assign,
         frozenset({"ticket"})),
    Task("comment", 'add the comment "{comment}" to ticket #{ticket}', gen_comment,
         check_comment, do_comment, frozenset({"comment"})),
    Task("wiki-page", 'create a wiki page named {page} with the text "{text}"', gen_wiki,
         check_wiki, do_wiki, frozenset({"wiki"})),
    Task("milestone", 'add the milestone "{name}"', gen_milestone, check_milestone,
         do_milestone, frozenset({"milestone"})),
    Task("remove-milestone", 'remove the milestone "{name}"', gen_unmilestone,
         check_unmilestone, do_unmilestone, frozenset({"milestone"})),
]  # fmt: skip

APP = App("trac", "Trac 1.6 (PyPI), SQLite, Python", start, TASKS, new_look, install)
