"""phpMyAdmin (Debian's package, PHP, MariaDB): a database admin whose pages are driven by
JavaScript (AJAX forms, modal confirmations), served by ``php -S`` from
/usr/share/phpmyadmin.

Debian's config.inc.php includes /etc/phpmyadmin/conf.d/*.php; install() puts a hook there
that loads the per-start config named by BROWSER_AGENT_PMA_CONFIG (this start's throwaway
MariaDB socket, cookie login), and nothing when it is unset. The admin logs in through the
login form as a browser would. The new look is another theme (Metro, was pmahomme).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import random
import re
import secrets
import shutil
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scripts.apps import (
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
from scripts.apps.mariadb import MariaDB, quoted, throwaway_mariadb

ADMIN = ("dbadmin", "pma-admin-pw-25")
ROOT = Path("/usr/share/phpmyadmin")
HOOK = Path("/etc/phpmyadmin/conf.d/browser-agent-apps.php")
SPECIES = ["heron", "kestrel", "plover", "egret", "curlew", "dunlin", "osprey", "avocet"]
SITES = ["lagoon", "meadow", "harbor", "dune", "marsh"]
SCRATCH = [f"archive_{year}" for year in range(1990, 2030)]


def install() -> None:
    """Debian's phpmyadmin (scripts/apps/install.sh installs it) and the config hook."""
    if not (ROOT / "index.php").exists():
        raise RuntimeError(
            "phpMyAdmin is not installed: run bash scripts/apps/install.sh phpmyadmin"
        )
    hook = "<?php\n$f = getenv('BROWSER_AGENT_PMA_CONFIG');\nif ($f) { require $f; }\n"
    if not HOOK.exists() or HOOK.read_text() != hook:
        HOOK.write_text(hook)


def _config(home: Path, db: MariaDB, theme: str) -> Path:
    (home / "tmp").mkdir(exist_ok=True)
    path = home / "pma-config.php"
    path.write_text(
        "<?php\n"
        f"$cfg['blowfish_secret'] = '{secrets.token_hex(16)}';\n"
        "$cfg['Servers'] = [1 => ['auth_type' => 'cookie', 'host' => 'localhost', "
        f"'connect_type' => 'socket', 'socket' => '{db.socket}', 'AllowNoPassword' => false]];\n"
        f"$cfg['TempDir'] = '{home / 'tmp'}';\n"
        f"$cfg['ThemeDefault'] = '{theme}';\n"
        "$cfg['VersionCheck'] = false;\n$cfg['SendErrorReports'] = 'never';\n"
        "$cfg['LoginCookieValidity'] = 86400;\n"
    )
    return path


def _login(url: str, path: Path) -> None:
    """Log in through the login form; the cookies as a Playwright storage state."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{url}/index.php", timeout=60).read().decode()
    found = re.search(r'name="token" value="([^"]+)"', page)
    if not found:
        raise RuntimeError(f"phpMyAdmin showed no login form at {url}/index.php")
    form = {"pma_username": ADMIN[0], "pma_password": ADMIN[1], "server": "1",
            "token": found.group(1), "route": "/"}  # fmt: skip
    opener.open(f"{url}/index.php?route=/", urllib.parse.urlencode(form).encode(), timeout=60)
    cookies = [
        {"name": c.name, "value": c.value or "", "domain": "127.0.0.1", "path": c.path or "/",
         "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Strict"}
        for c in jar
    ]  # fmt: skip
    if not any(c["name"].startswith("pmaAuth") for c in cookies):
        raise RuntimeError(f"phpMyAdmin refused the admin's login at {url}")
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


def _seed(db: MariaDB) -> None:
    rng = random.Random(25)
    db.sql(f"CREATE USER {quoted(ADMIN[0])}@'localhost' IDENTIFIED BY {quoted(ADMIN[1])}; "
           f"GRANT ALL PRIVILEGES ON *.* TO {quoted(ADMIN[0])}@'localhost' WITH GRANT OPTION; "
           "CREATE DATABASE field")  # fmt: skip
    rows = ", ".join(
        f"({quoted(rng.choice(SPECIES))}, {quoted(rng.choice(SITES))}, {rng.randint(1, 60)})"
        for _ in range(120)
    )
    db.sql("CREATE TABLE sightings (id INT AUTO_INCREMENT PRIMARY KEY, species VARCHAR(40), "
           "site VARCHAR(40), count INT); "
           f"INSERT INTO sightings (species, site, count) VALUES {rows}", "field")  # fmt: skip
    db.sql("; ".join(f"CREATE DATABASE {name}" for name in SCRATCH))


def snapshot(db: MariaDB) -> State:
    """Databases, accounts, the sightings' rows, and the tables' comments."""
    return {
        "database": db.sql("SELECT schema_name FROM information_schema.schemata ORDER BY 1"),
        "account": db.sql("SELECT user, host FROM mysql.user ORDER BY 1, 2"),
        "sighting": db.sql("SELECT * FROM field.sightings ORDER BY id"),
        "comment": db.sql(
            "SELECT table_name, table_comment FROM information_schema.tables "
            "WHERE table_schema = 'field' ORDER BY 1"
        ),  # fmt: skip
    }


@contextmanager
def start() -> Iterator[Running]:
    """MariaDB, seeded, and phpMyAdmin on 127.0.0.1; removed after."""
    install()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-phpmyadmin-"))
    try:
        with throwaway_mariadb(home) as db:
            _seed(db)
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            config = _config(home, db, "pmahomme")
            env = {**os.environ, "BROWSER_AGENT_PMA_CONFIG": str(config)}
            server = spawn(
                ["php", "-S", f"127.0.0.1:{port}", "-t", str(ROOT)], home / "php.log", env=env
            )
            try:
                wait_until_up(f"{url}/index.php", server)
                app = Running("phpmyadmin", url, ADMIN, home, home / "admin-state.json",
                              lambda: snapshot(db), {"db": db, "config": config})  # fmt: skip
                _login(url, app.storage_state)
                yield app
            finally:
                stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def new_look(app: Running) -> str:
    """Another default theme in the config, as its admin would set it."""
    config: Path = app.extra["config"]
    config.write_text(config.read_text().replace("'pmahomme'", "'metro'"))
    return "theme Metro (was pmahomme)"


def _db(app: Running) -> MariaDB:
    return app.extra["db"]


# --- tasks ---------------------------------------------------------------------------


def gen_database(rng: random.Random, app: Running) -> Values:
    return {"name": f"{words(rng, 1)}_{token(rng)}"}


def check_database(app: Running, v: Values, final_url: str | None) -> bool:
    return bool(_db(app).sql(f"SHOW DATABASES LIKE {quoted(v['name'])}"))


async def do_database(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/index.php?route=/server/databases")
    await page.fill("#text_create_db", v["name"])
    await page.click("#buttonGo")
    await page.wait_for_selector(f"#pma_navigation_tree >> text={v['name']}")


def gen_drop(rng: random.Random, app: Running) -> Values:
    left = {row[0] for row in _db(app).sql("SHOW DATABASES LIKE 'archive%'")}
    return {"name": rng.choice(sorted(left))}


def check_drop(app: Running, v: Values, final_url: str | None) -> bool:
    return not _db(app).sql(f"SHOW DATABASES LIKE {quoted(v['name'])}")


async def do_drop(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/index.php?route=/server/databases")
    await page.check(f"input[name='selected_dbs[]'][value={v['name']}]")
    await page.click("#bulkActionDropButton")
    await page.click("#dropDatabaseModalDropButton")
    await page.wait_for_selector(f"input[value={v['name']}]", state="detached")


def gen_account(rng: random.Random, app: Running) -> Values:
    return {"user": f"{words(rng, 1)}{token(rng)}", "password": f"Pw-{token(rng)}-{token(rng)}"}


def check_account(app: Running, v: Values, final_url: str | None) -> bool:
    return bool(_db(app).sql(f"SELECT 1 FROM mysql.user WHERE user = {quoted(v['user'])}"))


async def do_account(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/index.php?route=/server/privileges&adduser=1")
    await page.fill("#pma_username", v["user"])
    await page.fill("#text_pma_pw", v["password"])
    await page.fill("#text_pma_pw2", v["password"])
    await page.click("#adduser_submit")
    await page.wait_for_selector("text=You have added a new user")


def gen_insert(rng: random.Random, app: Running) -> Values:
    return {"species": rng.choice(SPECIES), "site": rng.choice(SITES),
            "count": str(rng.randint(100, 999))}  # fmt: skip


def check_insert(app: Running, v: Values, final_url: str | None) -> bool:
    return bool(_db(app).sql(
        f"SELECT 1 FROM field.sightings WHERE species = {quoted(v['species'])} AND "
        f"site = {quoted(v['site'])} AND count = {int(v['count'])}"
    ))  # fmt: skip


async def do_insert(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/index.php?route=/table/change&db=field&table=sightings")
    for column in ("species", "site", "count"):
        row = page.locator("table.insertRowTable tr", has=page.locator(f"td >> text='{column}'"))
        await row.locator("input[type=text], textarea").first.fill(v[column])
    await page.click("#insertForm input#buttonYes")
    await page.wait_for_selector("text=1 row inserted")


def gen_comment(rng: random.Random, app: Running) -> Values:
    return {"comment": f"{words(rng, 2).capitalize()} counts {token(rng)}"}


def check_comment(app: Running, v: Values, final_url: str | None) -> bool:
    rows = _db(app).sql("SELECT table_comment FROM information_schema.tables WHERE "
                        "table_schema = 'field' AND table_name = 'sightings'")  # fmt: skip
    return bool(rows) and rows[0][0] == v["comment"]


async def do_comment(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/index.php?route=/table/operations&db=field&table=sightings")
    form = page.locator("form#tableOptionsForm")
    await form.locator("input[name=comment]").fill(v["comment"])
    await form.locator("input[type=submit]").click()
    await page.wait_for_selector("text=Your SQL query has been executed successfully")


TASKS = [
    Task("create-database", "create a database named {name}", gen_database, check_database,
         do_database, frozenset({"database"})),
    Task("drop-database", "drop the database {name}", gen_drop, check_drop, do_drop,
         frozenset({"database"})),
    Task("add-account", "add a user account {user} with the password {password}", gen_account,
         check_account, do_account, frozenset({"account"})),
    Task("insert-row", "add a sighting of {species} at the {site} with count {count} to the "
         "sightings table of the field database", gen_insert, check_insert, do_insert,
         frozenset({"sighting"})),
    Task("table-comment", 'set the comment of the sightings table to "{comment}"', gen_comment,
         check_comment, do_comment, frozenset({"comment"})),
]  # fmt: skip

APP = App("phpmyadmin", "phpMyAdmin 5.2 (Debian), PHP 8.2, MariaDB", start, TASKS, new_look,
          install)  # fmt: skip
