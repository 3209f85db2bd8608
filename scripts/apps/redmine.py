"""Redmine (Debian's package, Ruby on Rails, SQLite): a project tracker with issues, a wiki
and a search, served by puma from /usr/share/redmine.

Debian's Redmine runs one instance per ``REDMINE_INSTANCE`` under
/usr/share/redmine/instances; each start names a throwaway instance folder of its own
(reached from there by a relative path: its config/database.yml, secret key, log, tmp and
files), so the package's default instance is never touched. install() builds a seeded
database once (migrated, Redmine's default data in English, the admin's password, a
public project with issues and wiki pages, its members) and keeps it in the cache; each
start copies it. The admin logs in through the login form as a browser would. The new
look is the interface language switched to German for everyone (Administration >
Settings > Display: default language, forced for anonymous and logged-in users).
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import os
import random
import re
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path

from scripts.apps import (
    CACHE,
    App,
    Running,
    State,
    Task,
    Values,
    free_port,
    spawn,
    stop,
    token,
    wait_until_up,
    words,
)

ADMIN = ("admin", "redmine-admin-pw-25")
ROOT = Path("/usr/share/redmine")
PROJECT = ("field-office", "Field Office", "Issues, runbooks and notes of the field office.")
START = f"/projects/{PROJECT[0]}"
_people = random.Random(25)
FIRST = ["alice", "bruno", "carmen", "dmitri", "elena", "felix", "greta", "hugo", "ines",
         "jonas", "kira", "lars", "maya", "nils", "olga", "pablo", "quinn", "rosa", "sven",
         "tara", "ugo", "vera", "wim", "xenia", "yara", "zoltan", "anja", "boris", "clara",
         "dario", "edith", "fabio", "gina", "hanna", "ivo", "jana", "karl", "lena", "milo",
         "nora"]  # fmt: skip
LAST = ["Moss", "Reed", "Hale", "Finch", "Stone", "Brook", "Vale", "Marsh"]
USERS = [
    (login, login.capitalize(), LAST[n % len(LAST)], f"{login}-{token(_people)}-pw")
    for n, login in enumerate(FIRST)
]  # (login, first name, last name, password)
SEED_ISSUES = [
    (f"{a.capitalize()} {b} report fails on {c}", f"Seen when the {b} {c} is open.")
    for a, b, c in [
        ("amber", "garnet", "harbor"), ("basalt", "juniper", "lagoon"),
        ("cedar", "kestrel", "meadow"), ("delta", "nectar", "orchid"),
        ("ember", "pebble", "quartz"), ("falcon", "raven", "saffron"),
        ("glacier", "tundra", "umber"), ("indigo", "velvet", "willow"),
    ]
]  # fmt: skip
SEED_WIKI = {
    "Runbook": "Steps for the night shift: check the pumps, then the gauges.",
    "Onboarding": "New staff read the safety notes and shadow a shift first.",
    "Glossary": "A gauge reads the water level; a sluice lets water through.",
    "Contacts": "The harbor office answers on weekdays from eight to four.",
    "Meetings": "The crew meets on Mondays to plan the week.",
}
SEED_WIKI_START = "h1. Field Office\n\nPages of the office:\n\n" + "".join(
    f"* [[{title}]]\n" for title in SEED_WIKI
)
SETTINGS = {"default_language": "en", "app_title": "Redmine",
            "welcome_text": "Welcome to the field office tracker."}  # fmt: skip

SEED_RB = """
require 'json'
seed = JSON.parse(File.read(ARGV.last))
admin = User.find_by_login('admin')
admin.password = admin.password_confirmation = seed['admin'][1]
admin.must_change_passwd = false
admin.mail = 'admin@example.org'
admin.language = ''
admin.save!
User.current = admin
seed['settings'].each { |name, value| Setting[name] = value }
project = Project.new(name: seed['project'][1], identifier: seed['project'][0],
                      description: seed['project'][2], is_public: true)
project.enabled_module_names = %w[issue_tracking wiki]
project.trackers = Tracker.all
project.save!
developer = Role.find_by_name('Developer')
users = seed['users'].map do |login, first, last, password|
  user = User.new(firstname: first, lastname: last, mail: "#{login}@example.org")
  user.login = login
  user.language = ''
  user.password = user.password_confirmation = password
  user.save!
  Member.create!(project: project, principal: user, role_ids: [developer.id])
  user
end
priority = IssuePriority.default || IssuePriority.first
seed['issues'].each_with_index do |(subject, description), n|
  Issue.create!(project: project, tracker: project.trackers.first, author: users[n],
                subject: subject, description: description, priority: priority,
                status: IssueStatus.first)
end
seed['wiki'].each do |title, text|
  page = WikiPage.new(wiki: project.wiki, title: title)
  page.content = WikiContent.new(text: text, author: admin, comments: '')
  page.save!
end
puts "seeded #{project.identifier}: #{users.size} users, #{project.issues.count} issues"
"""


def _seed() -> dict:
    return {"admin": ADMIN, "settings": SETTINGS, "project": PROJECT, "users": USERS,
            "issues": SEED_ISSUES,
            "wiki": [["Wiki", SEED_WIKI_START], *SEED_WIKI.items()]}  # fmt: skip


def _instance(home: Path) -> tuple[Path, dict[str, str]]:
    """A Redmine instance folder under ``home`` (config, log, tmp, files) and the
    environment that makes Debian's Redmine use it."""
    instance = home / "instance"
    for sub in ("config", "db", "log", "tmp/cache", "files", "public/plugin_assets"):
        (instance / sub).mkdir(parents=True, exist_ok=True)
    (instance / "config/database.yml").write_text(
        "production:\n  adapter: sqlite3\n"
        f"  database: {instance / 'db/redmine.sqlite3'}\n  timeout: 30000\n"
    )
    (instance / "config/secret_key.txt").write_text(secrets.token_hex(32))
    # Redmine looks for instance NAME at /usr/share/redmine/instances/NAME: enough ".."
    # climb to / (lexically and through the symlink to /var/lib/redmine alike)
    name = "../" * 8 + str(instance.resolve()).lstrip("/")
    env = {**os.environ, "RAILS_ENV": "production", "REDMINE_INSTANCE": name,
           "X_DEBIAN_SITEID": name, "RAILS_LOG_TO_STDOUT": ""}  # fmt: skip
    return instance, env


def _rails(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([*args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"Redmine: {' '.join(args)} failed:\n" + "\n".join(said))


def _version() -> str:
    found = re.findall(r"(MAJOR|MINOR|TINY)\s*=\s*(\d+)", (ROOT / "lib/redmine/version.rb")
                       .read_text())  # fmt: skip
    return ".".join(n for _, n in found)


def install() -> Path:
    """Debian's redmine (scripts/apps/install.sh installs it); the seeded database, built
    once and kept in the cache: its path."""
    if not (ROOT / "config.ru").exists() or not shutil.which("puma"):
        raise RuntimeError("Redmine is not installed: run bash scripts/apps/install.sh redmine")
    seed = json.dumps(_seed())
    digest = hashlib.sha256((_version() + SEED_RB + seed).encode()).hexdigest()[:16]
    built = CACHE / "redmine" / f"seeded-{digest}.sqlite3"
    if built.exists():
        return built
    built.parent.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="browser-agent-redmine-build-"))
    try:
        instance, env = _instance(home)
        (home / "seed.rb").write_text(SEED_RB)
        (home / "seed.json").write_text(seed)
        _rails(env, "bin/rake", "db:migrate")
        _rails(env, "bin/rake", "redmine:load_default_data", "REDMINE_LANG=en")
        _rails(env, "bin/rails", "runner", str(home / "seed.rb"), str(home / "seed.json"))
        partial = built.with_suffix(".partial")
        shutil.copyfile(instance / "db/redmine.sqlite3", partial)
        partial.replace(built)
        for old in built.parent.glob("seeded-*.sqlite3"):
            if old != built:
                old.unlink()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return built


def _login(url: str, path: Path) -> None:
    """Log in through the login form; the cookies as a Playwright storage state."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{url}/login", timeout=60).read().decode()
    found = re.search(r'name="authenticity_token" value="([^"]+)"', page)
    if not found:
        raise RuntimeError(f"Redmine showed no login form at {url}/login")
    form = {"username": ADMIN[0], "password": ADMIN[1], "authenticity_token": found.group(1),
            "back_url": f"{url}/", "login": "Login"}  # fmt: skip
    opener.open(f"{url}/login", urllib.parse.urlencode(form).encode(), timeout=60).read()
    cookies = [
        {"name": c.name, "value": c.value or "", "domain": "127.0.0.1", "path": c.path or "/",
         "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}
        for c in jar
    ]  # fmt: skip
    if "Logged in as" not in opener.open(f"{url}/my/page", timeout=60).read().decode():
        raise RuntimeError(f"Redmine refused the admin's login at {url}/login")
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


def _db(app: Running) -> sqlite3.Connection:
    return sqlite3.connect(app.extra["db"], timeout=30)


def _rows(app: Running, sql: str, *args: object) -> list[tuple]:
    with closing(_db(app)) as db:
        return db.execute(sql, args).fetchall()


def snapshot(app: Running) -> State:
    """Issues, their notes, wiki pages, users' logins, the settings."""
    return {
        "issue": _rows(app, "SELECT id, subject, description, status_id, assigned_to_id "
                       "FROM issues ORDER BY id"),
        "journal": _rows(app, "SELECT journalized_id, notes FROM journals ORDER BY id"),
        "wiki": _rows(app, "SELECT p.title, c.version, c.text FROM wiki_pages p JOIN "
                      "wiki_contents c ON c.page_id = p.id ORDER BY p.title"),
        "login": _rows(app, "SELECT login, last_login_on FROM users WHERE type = 'User' "
                       "AND login != ? ORDER BY id", ADMIN[0]),
        "setting": _rows(app, "SELECT name, value FROM settings ORDER BY name"),
    }  # fmt: skip


@contextmanager
def start() -> Iterator[Running]:
    """A fresh copy of the seeded Redmine, served by puma on 127.0.0.1; removed after."""
    seeded = install()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-redmine-"))
    try:
        instance, env = _instance(home)
        database = instance / "db/redmine.sqlite3"
        shutil.copyfile(seeded, database)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = spawn(
            ["puma", "--bind", f"tcp://127.0.0.1:{port}", "--environment", "production",
             "--threads", "0:4", "config.ru"],
            home / "puma.log", cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            wait_until_up(f"{url}/login", server, timeout=180)
            app = Running("redmine", url, ADMIN, home, home / "admin-state.json", lambda: {},
                          {"db": database})  # fmt: skip
            app.state = lambda: snapshot(app)
            _login(url, app.storage_state)
            yield app
        finally:
            stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def new_look(app: Running) -> str:
    """German for everyone, as in Administration > Settings > Display: the default
    language, forced for anonymous and logged-in users."""
    now = datetime.now().isoformat(sep=" ")
    with closing(_db(app)) as db, db:
        for name, value in (("default_language", "de"),
                            ("force_default_language_for_anonymous", "1"),
                            ("force_default_language_for_loggedin", "1")):  # fmt: skip
            db.execute("DELETE FROM settings WHERE name = ?", (name,))
            db.execute("INSERT INTO settings (name, value, updated_on) VALUES (?, ?, ?)",
                       (name, value, now))  # fmt: skip
    return "the interface language set to German for everyone (Settings > Display)"


# --- tasks ---------------------------------------------------------------------------


def gen_login(rng: random.Random, app: Running) -> Values:
    """A member who has not logged in yet, and their password (given as a secret)."""
    never = {row[0] for row in _rows(app, "SELECT login FROM users WHERE type = 'User' "
                                     "AND last_login_on IS NULL")}  # fmt: skip
    left = [user for user in USERS if user[0] in never]
    if not left:
        raise RuntimeError("every seeded Redmine user has logged in already")
    login, _, _, password = rng.choice(left)
    return {"user": login, "PASSWORD": password}


def check_login(app: Running, v: Values, final_url: str | None) -> bool:
    """Redmine recorded the user's login (their first: users are picked before it)."""
    found = _rows(app, "SELECT last_login_on FROM users WHERE login = ?", v["user"])
    return bool(found) and found[0][0] is not None


async def do_login(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click("#account >> text=Sign in")
    await page.fill("#username", v["user"])
    await page.fill("#password", v["PASSWORD"])
    await page.click("#login-submit")
    await page.wait_for_selector("#loggedas")


def gen_issue(rng: random.Random, app: Running) -> Values:
    return {
        "subject": f"{words(rng, 2).capitalize()} sync stalls {token(rng)}",
        "description": f"After the {words(rng, 1)} upgrade the {words(rng, 1)} queue never drains.",
    }


def check_issue(app: Running, v: Values, final_url: str | None) -> bool:
    found = _rows(app, "SELECT i.description FROM issues i JOIN projects p ON p.id = "
                  "i.project_id WHERE p.identifier = ? AND i.subject = ?", PROJECT[0],
                  v["subject"])  # fmt: skip
    return any((row[0] or "").strip() == v["description"] for row in found)


async def do_issue(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url + START)
    await page.click("#main-menu a.issues")
    await page.click("#content .contextual a.icon-add")  # New issue
    await page.fill("#issue_subject", v["subject"])
    await page.fill("#issue_description", v["description"])
    await page.click("input[name=commit]")
    await page.wait_for_url(re.compile(r"/issues/\d+$"))


def gen_wiki(rng: random.Random, app: Running) -> Values:
    return {"page": rng.choice(sorted(SEED_WIKI)),
            "text": f"Checked by the {words(rng, 2)} crew {token(rng)}."}  # fmt: skip


def check_wiki(app: Running, v: Values, final_url: str | None) -> bool:
    """The page's text now holds the text, and still what it said before."""
    found = _rows(app, "SELECT c.text FROM wiki_pages p JOIN wiki_contents c ON c.page_id = "
                  "p.id WHERE p.title = ?", v["page"])  # fmt: skip
    return bool(found) and v["text"] in found[0][0] and SEED_WIKI[v["page"]] in found[0][0]


async def do_wiki(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url + START)
    await page.click("#main-menu a.wiki")
    await page.click(f"#content .wiki a.wiki-page >> text='{v['page']}'")
    await page.click("#content .contextual a.icon-edit")  # Edit
    box = page.locator("#content_text")
    await box.click()
    await page.keyboard.press("Control+End")
    await page.keyboard.type(f"\n\n{v['text']}")
    await page.click("input[name=commit]")
    await page.wait_for_url(f"**/wiki/{v['page']}")


def gen_new_wiki(rng: random.Random, app: Running) -> Values:
    return {"page": f"{words(rng, 1).capitalize()}_log_{token(rng)}",
            "text": f"Seen by the {words(rng, 2)} crew {token(rng)}."}  # fmt: skip


def check_new_wiki(app: Running, v: Values, final_url: str | None) -> bool:
    """A wiki page of that title exists and its text holds the text."""
    found = _rows(app, "SELECT c.text FROM wiki_pages p JOIN wiki_contents c ON c.page_id = "
                  "p.id WHERE p.title = ?", v["page"])  # fmt: skip
    return bool(found) and v["text"] in found[0][0]


async def do_new_wiki(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    """As a person does on Redmine, which has no "new page" control: the new page's address."""
    await page.goto(f"{app.url}{START}/wiki/{v['page']}")
    await page.fill("#content_text", v["text"])
    await page.click("input[name=commit]")
    await page.wait_for_url(f"**/wiki/{v['page']}")


def gen_search(rng: random.Random, app: Running) -> Values:
    subject = rng.choice(SEED_ISSUES)[0]
    return {"term": rng.choice(subject.split()[:3]).lower()}


def check_search(app: Running, v: Values, final_url: str | None) -> bool:
    """The run ended on Redmine's search results for the term, listing a seeded issue."""
    if not final_url:
        return False
    parts = urllib.parse.urlsplit(final_url)
    asked = urllib.parse.parse_qs(parts.query).get("q", [""])[0]
    if not parts.path.endswith("/search") or asked.strip().lower() != v["term"].lower():
        return False
    ids = [row[0] for row in _rows(app, "SELECT id FROM issues WHERE lower(subject) LIKE ?",
                                   f"%{v['term'].lower()}%")]  # fmt: skip
    page = app.get(final_url)
    return 'id="search-results"' in page and any(f'/issues/{n}"' in page for n in ids)


async def do_search(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url + START)
    await page.fill("#q", v["term"])
    await page.press("#q", "Enter")
    await page.wait_for_url("**/search?**")


def gen_open(rng: random.Random, app: Running) -> Values:
    return {"subject": rng.choice(SEED_ISSUES)[0]}


def check_open(app: Running, v: Values, final_url: str | None) -> bool:
    """The run ended on the issue's own page."""
    if not final_url:
        return False
    ids = {row[0] for row in _rows(app, "SELECT id FROM issues WHERE subject = ?", v["subject"])}
    found = re.fullmatch(r"/issues/(\d+)/?", urllib.parse.urlsplit(final_url).path)
    return bool(found) and int(found.group(1)) in ids


async def do_open(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url + START)
    await page.click("#main-menu a.issues")
    await page.click(f"table.issues td.subject a >> text='{v['subject']}'")
    await page.wait_for_url(re.compile(r"/issues/\d+$"))


TASKS = [
    Task("login", "log in as {user} with the password {PASSWORD}", gen_login, check_login,
         do_login, frozenset({"login"}), "/", logged_out=True,
         secrets=frozenset({"PASSWORD"})),
    Task("new-issue", 'create an issue titled "{subject}" with the description "{description}"',
         gen_issue, check_issue, do_issue, frozenset({"issue"}), START),
    Task("edit-wiki", 'edit the wiki page "{page}" to add the text "{text}"', gen_wiki,
         check_wiki, do_wiki, frozenset({"wiki"}), START),
    Task("new-wiki", 'create a wiki page named {page} with the text "{text}"', gen_new_wiki,
         check_new_wiki, do_new_wiki, frozenset({"wiki"}), START),
    Task("search", "search for {term}", gen_search, check_search, do_search, start=START),
    Task("open-issue", 'open the issue titled "{subject}"', gen_open, check_open, do_open,
         start=START),
]  # fmt: skip

APP = App("redmine", "Redmine 5.0 (Debian), Ruby on Rails, SQLite", start, TASKS, new_look,
          install)  # fmt: skip
