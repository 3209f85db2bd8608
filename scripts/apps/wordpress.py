"""WordPress (Debian's package, PHP, MariaDB): a CMS whose post editor is the JavaScript
block editor, served by ``php -S`` from /usr/share/wordpress.

Debian's wp-config.php reads /etc/wordpress/config-127.0.0.1.php for this host; install()
makes that file include the per-start config named by BROWSER_AGENT_WP_CONFIG (the
database on this start's throwaway MariaDB socket), and nothing when it is unset. The new
look is another theme (Twenty Twenty-Three, a block theme) and another admin colour scheme.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import random
import secrets
import shutil
import subprocess
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

ADMIN = ("admin", "wp-admin-pw-25")
ROOT = Path("/usr/share/wordpress")
INSTALLER = Path(__file__).with_name("wordpress_install.php")
HOST_CONFIG = Path("/etc/wordpress/config-127.0.0.1.php")
SEED_POSTS = [
    (f"Notes on the {a} {b}", f"The {a} {b} season starts early near the {c}.")
    for a, b, c in [
        ("amber", "harbor", "lagoon"), ("basalt", "meadow", "orchid"),
        ("cedar", "quartz", "tundra"), ("delta", "willow", "zephyr"),
        ("ember", "glacier", "copper"), ("falcon", "yarrow", "beacon"),
    ]
]  # fmt: skip
SEED_USERS = [("alice", "editor"), ("bob", "author")]
ROLES = ("editor", "author", "contributor", "subscriber")


def install() -> None:
    """Debian's wordpress (scripts/apps/install.sh installs it) and the host config hook."""
    if not (ROOT / "wp-load.php").exists():
        raise RuntimeError("WordPress is not installed: run bash scripts/apps/install.sh wordpress")
    hook = "<?php\n$f = getenv('BROWSER_AGENT_WP_CONFIG');\nif ($f) { require $f; }\n"
    if not HOST_CONFIG.exists() or HOST_CONFIG.read_text() != hook:
        HOST_CONFIG.write_text(hook)


def _config(home: Path, db: MariaDB, url: str) -> Path:
    keys = "".join(
        f"define('{k}', '{secrets.token_hex(24)}');\n"
        for k in ("AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT",
                  "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT")
    )  # fmt: skip
    path = home / "wp-config.php"
    path.write_text(
        "<?php\n"
        "define('DB_NAME', 'wordpress');\ndefine('DB_USER', 'root');\ndefine('DB_PASSWORD', '');\n"
        f"define('DB_HOST', 'localhost:{db.socket}');\n"
        f"define('WP_CONTENT_DIR', '{ROOT}/wp-content');\n"
        f"define('WP_HOME', '{url}');\ndefine('WP_SITEURL', '{url}');\n"
        "define('DISABLE_WP_CRON', true);\ndefine('AUTOMATIC_UPDATER_DISABLED', true);\n"
        "define('WP_DEBUG', false);\n" + keys
    )
    return path


def _login(url: str, path: Path) -> None:
    """Log in at wp-login.php as a browser would; the cookies, with their paths, as a
    Playwright storage state."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{url}/wp-login.php", timeout=60).read()
    form = {"log": ADMIN[0], "pwd": ADMIN[1], "wp-submit": "Log In", "testcookie": "1",
            "redirect_to": f"{url}/wp-admin/"}  # fmt: skip
    opener.open(f"{url}/wp-login.php", urllib.parse.urlencode(form).encode(), timeout=60).read()
    cookies = [
        {"name": c.name, "value": c.value or "", "domain": "127.0.0.1", "path": c.path,
         "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}
        for c in jar
    ]  # fmt: skip
    if not any(c["name"].startswith("wordpress_logged_in") for c in cookies):
        raise RuntimeError(f"WordPress refused the admin's login at {url}/wp-login.php")
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


def snapshot(db: MariaDB) -> State:
    """Posts, users and their roles, categories, the site title, the theme."""
    return {
        "post": db.sql("SELECT ID, post_title, post_status, post_content FROM wp_posts "
                       "WHERE post_type IN ('post', 'page') AND post_status != 'auto-draft' "
                       "ORDER BY ID", "wordpress"),
        "user": db.sql("SELECT u.user_login, u.user_email, m.meta_value FROM wp_users u JOIN "
                       "wp_usermeta m ON m.user_id = u.ID AND m.meta_key = 'wp_capabilities' "
                       "ORDER BY u.ID", "wordpress"),
        "category": db.sql("SELECT t.name FROM wp_terms t JOIN wp_term_taxonomy x USING "
                           "(term_id) WHERE x.taxonomy = 'category' ORDER BY t.name", "wordpress"),
        "option": db.sql("SELECT option_name, option_value FROM wp_options WHERE option_name "
                         "IN ('blogname', 'blogdescription', 'template') ORDER BY 1", "wordpress"),
    }  # fmt: skip


@contextmanager
def start() -> Iterator[Running]:
    """MariaDB and WordPress on 127.0.0.1, installed fresh and seeded; removed after."""
    install()
    home = Path(tempfile.mkdtemp(prefix="browser-agent-wordpress-"))
    try:
        with throwaway_mariadb(home) as db:
            db.sql("CREATE DATABASE wordpress")
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            env = {**os.environ, "BROWSER_AGENT_WP_CONFIG": str(_config(home, db, url))}
            seed = json.dumps({"posts": SEED_POSTS, "users": SEED_USERS})
            subprocess.run(
                ["php", str(INSTALLER), url, ADMIN[1], seed],
                check=True, capture_output=True, env=env, timeout=300,
            )  # fmt: skip
            server = spawn(
                ["php", "-S", f"127.0.0.1:{port}", "-t", str(ROOT)], home / "php.log", env=env
            )
            try:
                wait_until_up(f"{url}/wp-login.php", server)
                app = Running("wordpress", url, ADMIN, home, home / "admin-state.json",
                              lambda: snapshot(db), {"db": db})  # fmt: skip
                _login(url, app.storage_state)
                yield app
            finally:
                stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def new_look(app: Running) -> str:
    """Another theme and another admin colour scheme, as in Appearance and the profile."""
    db: MariaDB = app.extra["db"]
    for name in ("template", "stylesheet"):
        db.sql(f"UPDATE wp_options SET option_value = 'twentytwentythree' "
               f"WHERE option_name = '{name}'",
               "wordpress")  # fmt: skip
    db.sql("UPDATE wp_usermeta SET meta_value = 'ocean' "
           "WHERE user_id = 1 AND meta_key = 'admin_color'",
           "wordpress")  # fmt: skip
    return "theme Twenty Twenty-Three (was Twenty Twenty-One), admin colour scheme Ocean"


def _one(app: Running, sql: str) -> list[list[str]]:
    return app.extra["db"].sql(sql, "wordpress")


# --- tasks ---------------------------------------------------------------------------


def gen_post(rng: random.Random, app: Running) -> Values:
    return {"title": f"{words(rng, 2).capitalize()} field report {token(rng)}",
            "text": f"We counted {rng.randint(3, 90)} {words(rng, 1)} nests by the "
                    f"{words(rng, 1)}."}  # fmt: skip


def check_post(app: Running, v: Values, final_url: str | None) -> bool:
    rows = _one(app, "SELECT post_content FROM wp_posts WHERE post_type = 'post' AND "
                f"post_status = 'publish' AND post_title = {quoted(v['title'])}")  # fmt: skip
    return any(v["text"] in row[0] for row in rows)


async def do_post(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/wp-admin/post-new.php")
    title = page.get_by_role("textbox", name="Add title")
    await title.click()
    await page.keyboard.type(v["title"])
    await page.keyboard.press("Enter")
    await page.keyboard.type(v["text"])
    await page.click(".editor-post-publish-panel__toggle")
    await page.click(".editor-post-publish-panel .editor-post-publish-button")
    await page.wait_for_selector(".post-publish-panel__postpublish")


def gen_search(rng: random.Random, app: Running) -> Values:
    return {"term": rng.choice(rng.choice(SEED_POSTS)[0].split()[-2:])}


def check_search(app: Running, v: Values, final_url: str | None) -> bool:
    """The run ended on the site's search results for the term, listing a post with it."""
    if not final_url:
        return False
    asked = urllib.parse.parse_qs(urllib.parse.urlsplit(final_url).query).get("s", [""])[0]
    if asked.strip().lower() != v["term"].lower():
        return False
    page = app.get(final_url)
    return any(title in page for title, _ in SEED_POSTS if v["term"] in title)


async def do_search(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(app.url)
    box = page.get_by_role("searchbox").first
    await box.fill(v["term"])
    await box.press("Enter")
    await page.wait_for_url("**s=*")


def gen_user(rng: random.Random, app: Running) -> Values:
    login = f"{words(rng, 1)}{token(rng)}"
    return {"login": login, "email": f"{login}@example.org", "role": rng.choice(ROLES)}


def check_user(app: Running, v: Values, final_url: str | None) -> bool:
    rows = _one(app, "SELECT u.user_email, m.meta_value FROM wp_users u JOIN wp_usermeta m ON "
                "m.user_id = u.ID AND m.meta_key = 'wp_capabilities' WHERE u.user_login = "
                f"{quoted(v['login'])}")  # fmt: skip
    return any(r[0] == v["email"] and f'"{v["role"]}"' in r[1] for r in rows)


async def do_user(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/wp-admin/user-new.php")
    await page.fill("#user_login", v["login"])
    await page.fill("#email", v["email"])
    await page.select_option("#role", v["role"])
    await page.click("#createusersub")
    await page.wait_for_url("**/users.php?**")


def gen_category(rng: random.Random, app: Running) -> Values:
    return {"name": f"{words(rng, 2).title()} {token(rng)}"}


def check_category(app: Running, v: Values, final_url: str | None) -> bool:
    return bool(_one(app, "SELECT 1 FROM wp_terms t JOIN wp_term_taxonomy x USING (term_id) "
                     f"WHERE x.taxonomy = 'category' AND t.name = "
                     f"{quoted(v['name'])}"))  # fmt: skip


async def do_category(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/wp-admin/edit-tags.php?taxonomy=category")
    await page.fill("#tag-name", v["name"])
    await page.click("#submit")
    await page.wait_for_selector(f"#the-list >> text={v['name']}")


def gen_title(rng: random.Random, app: Running) -> Values:
    return {"title": f"{words(rng, 2).title()} Journal"}


def check_title(app: Running, v: Values, final_url: str | None) -> bool:
    rows = _one(app, "SELECT option_value FROM wp_options WHERE option_name = 'blogname'")
    return bool(rows) and rows[0][0] == v["title"]


async def do_title(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/wp-admin/options-general.php")
    await page.fill("#blogname", v["title"])
    await page.click("#submit")
    await page.wait_for_url("**settings-updated=true")


TASKS = [
    Task("new-post", 'publish a post titled "{title}" with the text "{text}"', gen_post,
         check_post, do_post, frozenset({"post"}), "/wp-admin/"),
    Task("search", "search the site for {term}", gen_search, check_search, do_search),
    Task("add-user", "add a user {login} with the email {email} and the role {role}", gen_user,
         check_user, do_user, frozenset({"user"}), "/wp-admin/"),
    Task("category", 'add the category "{name}"', gen_category, check_category, do_category,
         frozenset({"category"}), "/wp-admin/"),
    Task("site-title", 'change the site title to "{title}"', gen_title, check_title, do_title,
         frozenset({"option"}), "/wp-admin/"),
]  # fmt: skip

APP = App("wordpress", "WordPress 6.1 (Debian), PHP 8.2, MariaDB", start, TASKS, new_look, install)
