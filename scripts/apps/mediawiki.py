"""MediaWiki (Debian's package, PHP, SQLite): a wiki whose pages are reached by name, made
by following the wiki's own "create" offer and changed through each page's "Edit" tab,
served by ``php -S`` from /usr/share/mediawiki with the Vector 2022 skin (its search box
is built by the page's script).

Debian's MediaWiki reads its settings from /etc/mediawiki/LocalSettings.php; every
process here names its own with ``MW_CONFIG_FILE`` instead, so the package's own wiki is
never touched. install() builds a seeded wiki once (maintenance/install.php on SQLite, the
admin's password, a few people, pages with distinct titles and text, the Main Page listing
them) and keeps it in the cache; each start copies it. The admin logs in through the API's
``clientlogin``, as the login form does. The new look is the interface language forced to
German for everyone (anonymous and logged-in), the content and its page names unchanged.
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.parse
import urllib.request
import zlib
from collections.abc import Iterator
from contextlib import closing, contextmanager
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

ADMIN = ("Admin", "mw-admin-pw-25")
ROOT = Path("/usr/share/mediawiki")
SITE = "Field Wiki"
MAIN = "Main Page"
_people = random.Random(37)
# Enough people for a login per instance of the bench's phases at --fresh 10.
USERS = [
    (name, f"{name.lower()}-{token(_people)}-pw")
    for name in ["Alice", "Bruno", "Carmen", "Dmitri", "Elena", "Felix", "Greta", "Hugo",
                 "Ines", "Jonas", "Kira", "Lars", "Maya", "Nils", "Olga", "Pablo", "Quinn",
                 "Rosa", "Sven", "Tara", "Ugo", "Vera", "Wim", "Xenia", "Yara", "Zoltan",
                 "Anja", "Boris", "Clara", "Dario", "Elif", "Fiona", "Goran", "Hana", "Igor",
                 "Jana", "Kofi", "Lena", "Milo", "Nora", "Omar", "Petra"]
]  # fmt: skip
SEED_PAGES = {
    "Pump Station": "The pump station lifts water from the lower sluice twice a day.",
    "Night Shift": "The night shift checks every gauge and writes the readings down.",
    "Safety Notes": "Wear a helmet near the turbine and never open a valve alone.",
    "Harbor Office": "The harbor office answers on weekdays from eight to four.",
    "Weekly Meeting": "The crew meets on Mondays to plan repairs and deliveries.",
    "Tide Tables": "High tide floods the jetty; the ferry waits for the slack water.",
}
SEARCH_TERMS = ["sluice", "gauge", "turbine", "helmet", "jetty", "ferry", "deliveries", "valve"]
MAIN_TEXT = "Welcome to the field wiki. Pages of the office:\n\n" + "".join(
    f"* [[{title}]]\n" for title in SEED_PAGES
)
GERMAN = (
    "\n# The interface in German for everyone (anonymous and logged-in)\n"
    "$wgHooks['UserGetLanguageObject'][] = static function ( $user, &$code, $context ) {\n"
    "\t$code = 'de';\n};\n"
)


def _version() -> str:
    found = re.search(r"MW_VERSION', '([^']+)'", (ROOT / "includes/Defines.php").read_text())
    return found.group(1) if found else "unknown"


def _php(config: Path, *args: str, stdin: str | None = None) -> None:
    """A maintenance script of MediaWiki run with these settings; its complaint if it fails."""
    env = {**os.environ, "MW_CONFIG_FILE": str(config)}
    done = subprocess.run(["php", *args], cwd=ROOT, env=env, input=stdin, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()[-10:]
        raise RuntimeError(f"MediaWiki: {' '.join(args)} failed:\n" + "\n".join(said))


def _settings(base: str, home: Path, url: str, german: bool = False) -> Path:
    """This start's LocalSettings.php: the installer's, on this start's data folder and
    address, with the Vector 2022 skin and no mail."""
    text = re.sub(r'\$wgSQLiteDataDir = "[^"]*";', f'$wgSQLiteDataDir = "{home / "data"}";', base)
    text = re.sub(r'\$wgServer = "[^"]*";', f'$wgServer = "{url}";', text)
    text += (
        '\n$wgDefaultSkin = "vector-2022";\n$wgEnableEmail = false;\n'
        f'$wgCacheDirectory = "{home / "cache"}";\n$wgUploadDirectory = "{home / "images"}";\n'
        "$wgJobRunRate = 0;\n$wgShowExceptionDetails = true;\n"
    ) + (GERMAN if german else "")
    path = home / "LocalSettings.php"
    path.write_text(text, encoding="utf-8")
    return path


def _seed() -> str:
    return json.dumps({"admin": ADMIN, "site": SITE, "users": USERS, "pages": SEED_PAGES,
                       "main": MAIN_TEXT})  # fmt: skip


def install() -> Path:
    """Debian's mediawiki (scripts/apps/install.sh installs it); the seeded wiki (its data
    folder and the installer's settings), built once and kept in the cache: its folder."""
    if not (ROOT / "maintenance/install.php").exists() or not shutil.which("php"):
        raise RuntimeError("MediaWiki is not installed: run bash scripts/apps/install.sh mediawiki")
    digest = hashlib.sha256((_version() + _seed() + GERMAN).encode()).hexdigest()[:16]
    built = CACHE / "mediawiki" / f"seeded-{digest}"
    if (built / "base.php").exists():
        return built
    home = Path(tempfile.mkdtemp(prefix="browser-agent-mediawiki-build-"))
    try:
        (home / "data").mkdir()
        config = home / "LocalSettings.php"
        _php(config, "maintenance/install.php", "--dbtype", "sqlite", "--dbpath",
             str(home / "data"), "--dbname", "wiki", "--server", "http://127.0.0.1",
             "--scriptpath", "", "--lang", "en", "--pass", ADMIN[1], "--confpath", str(home),
             "--skins", "Vector", SITE, ADMIN[0])  # fmt: skip
        base = config.read_text(encoding="utf-8")
        _settings(base, home, "http://127.0.0.1")
        for name, password in USERS:
            _php(config, "maintenance/createAndPromote.php", name, password)
        for title, text in {MAIN: MAIN_TEXT, **SEED_PAGES}.items():
            _php(config, "maintenance/edit.php", "-u", ADMIN[0], "-s", "seed", title, stdin=text)
        _php(config, "maintenance/rebuildtextindex.php")
        partial = built.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        shutil.copytree(home / "data", partial / "data")
        (partial / "base.php").write_text(base, encoding="utf-8")
        partial.replace(built)
        for old in built.parent.glob("seeded-*"):
            if old != built:
                shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return built


def _login(url: str, path: Path) -> None:
    """Log in through the API's clientlogin (the login form's own road); the cookies as a
    Playwright storage state."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    api = f"{url}/api.php"

    def call(**params: str) -> dict:
        body = urllib.parse.urlencode({**params, "format": "json"}).encode()
        return json.loads(opener.open(api, body, timeout=60).read().decode())

    login_token = call(action="query", meta="tokens", type="login")["query"]["tokens"]
    said = call(action="clientlogin", username=ADMIN[0], password=ADMIN[1],
                logintoken=login_token["logintoken"], loginreturnurl=f"{url}/")  # fmt: skip
    if said.get("clientlogin", {}).get("status") != "PASS":
        raise RuntimeError(f"MediaWiki refused the admin's login: {said}")
    cookies = [
        {"name": c.name, "value": c.value or "", "domain": "127.0.0.1", "path": c.path or "/",
         "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}
        for c in jar
    ]  # fmt: skip
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


def _rows(app: Running, sql: str, *args: object, db: str = "wiki") -> list[tuple]:
    with closing(sqlite3.connect(app.home / "data" / f"{db}.sqlite", timeout=30)) as conn:
        return conn.execute(sql, args).fetchall()


def _title(name: str) -> str:
    """A page name as MediaWiki stores it: underscores, first letter upper case."""
    name = name.strip().replace(" ", "_")
    return name[:1].upper() + name[1:]


def page_text(app: Running, title: str) -> str | None:
    """The current text of a main-namespace page (None when it does not exist), read from
    its page, slot, content and text rows."""
    found = _rows(
        app,
        "SELECT t.old_text FROM page p JOIN slots s ON s.slot_revision_id = p.page_latest "
        "JOIN content c ON c.content_id = s.slot_content_id JOIN text t ON "
        "'tt:' || t.old_id = c.content_address WHERE p.page_namespace = 0 AND p.page_title = ?",
        _title(title),
    )
    if not found:
        return None
    text = found[0][0]
    return text.decode("utf-8") if isinstance(text, bytes) else text


def logged_in(app: Running) -> set[str]:
    """The user names MediaWiki holds a logged-in session for (its session store, kept in
    the object cache's SQLite file)."""
    names = set()
    for (value,) in _rows(app, "SELECT value FROM objectcache WHERE keyname LIKE '%MWSession%'",
                          db="wikicache"):  # fmt: skip
        raw = zlib.decompress(value, -15)  # PHP's serialize(), then gzdeflate()
        found = re.search(rb's:8:"userName";s:\d+:"([^"]*)"', raw)
        if found:
            names.add(found.group(1).decode("utf-8"))
    return names


def snapshot(app: Running) -> State:
    """Pages with their current text, the people, who is logged in."""
    return {
        "page": [(t, page_text(app, t)) for (t,) in
                 _rows(app, "SELECT page_title FROM page WHERE page_namespace = 0 ORDER BY 1")],
        "user": _rows(app, "SELECT user_name FROM user ORDER BY user_id"),
        "login": sorted(logged_in(app) - {ADMIN[0]}),
    }  # fmt: skip


@contextmanager
def start() -> Iterator[Running]:
    """A fresh copy of the seeded wiki, served by ``php -S`` on 127.0.0.1; removed after."""
    seeded = install()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-mediawiki-"))
    try:
        shutil.copytree(seeded / "data", home / "data")
        (home / "cache").mkdir()
        (home / "images").mkdir()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        base = (seeded / "base.php").read_text(encoding="utf-8")
        config = _settings(base, home, url)
        env = {**os.environ, "MW_CONFIG_FILE": str(config), "PHP_CLI_SERVER_WORKERS": "4"}
        # every request reads LocalSettings.php anew (opcache would keep it up to 2 s)
        serve = ["php", "-d", "opcache.revalidate_freq=0", "-S", f"127.0.0.1:{port}", "-t",
                 str(ROOT)]  # fmt: skip
        server = spawn(serve, home / "php.log", cwd=ROOT, env=env)
        try:
            wait_until_up(f"{url}/api.php", server)
            app = Running("mediawiki", url, ADMIN, home, home / "admin-state.json", lambda: {},
                          {"base": base})  # fmt: skip
            app.state = lambda: snapshot(app)
            _login(url, app.storage_state)
            yield app
        finally:
            stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def new_look(app: Running) -> str:
    """German for everyone, as a line of LocalSettings.php forces it (the interface
    language of anonymous and logged-in users; page names and text unchanged)."""
    _settings(app.extra["base"], app.home, app.url, german=True)
    return "the interface language forced to German for everyone (LocalSettings.php)"


# --- tasks ---------------------------------------------------------------------------


def _asked_title(final_url: str | None) -> tuple[str, dict[str, list[str]]]:
    """The page a wiki address names (by path or by ``title=``) and its query."""
    if not final_url:
        return "", {}
    parts = urllib.parse.urlsplit(final_url)
    query = urllib.parse.parse_qs(parts.query)
    name = query.get("title", [""])[0]
    if not name and parts.path.startswith("/index.php/"):
        name = urllib.parse.unquote(parts.path[len("/index.php/") :])
    return _title(name), query


def gen_login(rng: random.Random, app: Running) -> Values:
    """A person with no session yet, and their password (given as a secret)."""
    busy = logged_in(app)
    left = [user for user in USERS if user[0] not in busy]
    if not left:
        raise RuntimeError("every seeded MediaWiki user has logged in already")
    name, password = rng.choice(left)
    return {"user": name, "PASSWORD": password}


def check_login(app: Running, v: Values, final_url: str | None) -> bool:
    """MediaWiki holds a session logged in as the user."""
    return _title(v["user"]) in logged_in(app)


async def do_login(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click("#p-personal-checkbox")  # Vector 2022 keeps "Log in" in this menu
    await page.click(".vector-user-menu-login a")
    await page.fill("#wpName1", v["user"])
    await page.fill("#wpPassword1", v["PASSWORD"])
    await page.click("#wpLoginAttempt")
    await page.wait_for_url("**/Main_Page")


def gen_open(rng: random.Random, app: Running) -> Values:
    return {"title": rng.choice(sorted(SEED_PAGES))}


def check_open(app: Running, v: Values, final_url: str | None) -> bool:
    """The run ended on the page's own view (not its editor, history or another page)."""
    name, query = _asked_title(final_url)
    return (
        name == _title(v["title"])
        and query.get("action", ["view"])[0] == "view"
        and "oldid" not in query
        and page_text(app, v["title"]) is not None
    )


async def do_open(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click(f"#mw-content-text a >> text='{v['title']}'")
    await page.wait_for_url(f"**/{_title(v['title'])}")


def gen_search(rng: random.Random, app: Running) -> Values:
    return {"term": rng.choice(SEARCH_TERMS)}


def check_search(app: Running, v: Values, final_url: str | None) -> bool:
    """The run ended on the wiki's search results for the term, listing a page with it."""
    name, query = _asked_title(final_url)
    if name != "Special:Search" or query.get("search", [""])[0].strip().lower() != v["term"]:
        return False
    page = app.get(final_url or "")
    holding = [t for t, text in SEED_PAGES.items() if v["term"] in text.lower()]
    return "mw-search-results" in page and any(
        f'title="{t}"' in page or f'title="{t.replace(" ", "_")}"' in page for t in holding
    )


async def _search(page, app: Running, term: str) -> None:  # type: ignore[no-untyped-def]
    box = page.locator("#p-search input[name=search]").first
    await box.fill(term)
    await box.press("Enter")
    await page.wait_for_url(lambda url: _asked_title(url)[0] == "Special:Search")


async def do_search(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await _search(page, app, v["term"])


def gen_create(rng: random.Random, app: Running) -> Values:
    return {"title": f"{words(rng, 2).capitalize()} survey {token(rng)}",
            "text": f"The crew counted {rng.randint(3, 90)} {words(rng, 1)} posts by the "
                    f"{words(rng, 1)}."}  # fmt: skip


def check_create(app: Running, v: Values, final_url: str | None) -> bool:
    """The page exists and holds the text."""
    return v["text"] in (page_text(app, v["title"]) or "")


async def do_create(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await _search(page, app, v["title"])
    await page.click(".mw-search-createlink a")
    await page.fill("#wpTextbox1", v["text"])
    await page.click("#wpSave")
    await page.wait_for_url(f"**/{_title(v['title'])}")


def gen_edit(rng: random.Random, app: Running) -> Values:
    return {"title": rng.choice(sorted(SEED_PAGES)),
            "text": f"Checked by the {words(rng, 2)} crew {token(rng)}."}  # fmt: skip


def check_edit(app: Running, v: Values, final_url: str | None) -> bool:
    """The page's text now holds the text, and still what it said before."""
    text = page_text(app, v["title"]) or ""
    return v["text"] in text and SEED_PAGES[v["title"]] in text


async def do_edit(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    await page.click(f"#mw-content-text a >> text='{v['title']}'")
    await page.click("#ca-edit a")
    box = page.locator("#wpTextbox1")
    await box.click()
    await page.keyboard.press("Control+End")
    await page.keyboard.type(f"\n\n{v['text']}")
    await page.click("#wpSave")
    await page.wait_for_url(f"**/{_title(v['title'])}")


TASKS = [
    Task("login", "log in as {user} with the password {PASSWORD}", gen_login, check_login,
         do_login, frozenset({"login"}), logged_out=True, secrets=frozenset({"PASSWORD"})),
    Task("open-page", 'open the wiki page "{title}"', gen_open, check_open, do_open),
    Task("search", "search the wiki for {term}", gen_search, check_search, do_search),
    Task("new-page", 'create a wiki page titled "{title}" with the text "{text}"', gen_create,
         check_create, do_create, frozenset({"page"})),
    Task("edit-page", 'edit the wiki page "{title}" to add the text "{text}"', gen_edit,
         check_edit, do_edit, frozenset({"page"})),
]  # fmt: skip

APP = App("mediawiki", "MediaWiki 1.39 (Debian), PHP 8.2, SQLite", start, TASKS, new_look,
          install)  # fmt: skip
