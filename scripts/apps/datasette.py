"""Datasette (PyPI, SQLite, Python): a table browser with filters, sorting, facets and
full-text search, over a seeded table of bird sightings.

The root actor signs in through the one-time token ``--root`` prints; its ``ds_actor``
cookie is the kept login. Every task here reads: its check asks Datasette for the JSON of
the page the run ended on and compares its rows with what the database holds for the values
asked. The new look is an overridden table template (``--template-dir``), its filter form
in German, as an admin would customise it.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from scripts.apps import (
    App,
    Running,
    Task,
    Values,
    ensure_venv,
    free_port,
    spawn,
    stop,
    wait_until_up,
)

REQUIREMENTS = ["datasette==0.65.*"]
SPECIES = ["heron", "kestrel", "plover", "egret", "curlew", "dunlin", "osprey", "avocet"]
SITES = ["lagoon", "meadow", "harbor", "dune", "marsh"]
COLUMNS = ["species", "site", "count"]


def install() -> Path:
    return ensure_venv("datasette", REQUIREMENTS, "datasette")


def _seed(path: Path) -> None:
    rng = random.Random(25)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE sightings (id INTEGER PRIMARY KEY, species TEXT, site TEXT, "
                   "count INTEGER, notes TEXT)")  # fmt: skip
        for _ in range(240):
            species, site = rng.choice(SPECIES), rng.choice(SITES)
            db.execute(
                "INSERT INTO sightings (species, site, count, notes) VALUES (?, ?, ?, ?)",
                (species, site, rng.randint(1, 60), f"{species} seen near the {site}"),
            )
        db.execute("CREATE VIRTUAL TABLE sightings_fts USING fts5(species, notes, "
                   "content='sightings', content_rowid='id')")  # fmt: skip
        db.execute("INSERT INTO sightings_fts(rowid, species, notes) SELECT id, species, notes "
                   "FROM sightings")  # fmt: skip


def _serve(app_home: Path, port: int, templates: Path | None = None):  # type: ignore[no-untyped-def]
    command = [str(install() / "datasette"), "serve", str(app_home / "field.db"), "-h",
               "127.0.0.1", "-p", str(port), "--root", "--setting", "default_page_size", "50",
               "--metadata", str(app_home / "metadata.json")]  # fmt: skip
    if templates is not None:
        command += ["--template-dir", str(templates)]
    log = app_home / f"datasette-{time.monotonic_ns()}.log"
    server = spawn(command, log)
    wait_until_up(f"http://127.0.0.1:{port}/-/versions.json", server)
    return server, log


def _login(url: str, log: Path, path: Path) -> None:
    found = re.search(r"/-/auth-token\?token=\w+", log.read_text())
    if not found:
        raise RuntimeError("datasette printed no root token")

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    try:
        response = urllib.request.build_opener(Keep).open(url + found.group(0), timeout=30)
    except urllib.error.HTTPError as error:
        response = error
    cookies = []
    for header in response.headers.get_all("Set-Cookie") or []:
        name, _, rest = header.partition("=")
        cookies.append({"name": name.strip(), "value": rest.split(";", 1)[0], "domain": "127.0.0.1",
                        "path": "/", "expires": -1, "httpOnly": True, "secure": False,
                        "sameSite": "Lax"})  # fmt: skip
    path.write_text(json.dumps({"cookies": cookies, "origins": []}), encoding="utf-8")


@contextmanager
def start() -> Iterator[Running]:
    """A fresh seeded database served by Datasette on 127.0.0.1; removed after."""
    home = Path(tempfile.mkdtemp(prefix="browser-agent-datasette-"))
    try:
        _seed(home / "field.db")
        tables = {"sightings": {"fts_table": "sightings_fts", "fts_pk": "id"}}
        (home / "metadata.json").write_text(
            json.dumps({"databases": {"field": {"tables": tables}}})
        )
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        servers = [_serve(home, port)]
        try:
            app = Running("datasette", url, ("root", ""), home, home / "admin-state.json",
                          lambda: {"sightings": _rows(app, "SELECT * FROM sightings")})  # fmt: skip
            app.extra["servers"] = servers
            app.extra["port"] = port
            _login(url, servers[0][1], app.storage_state)
            yield app
        finally:
            for server, _log in servers:
                stop(server)
    finally:
        shutil.rmtree(home, ignore_errors=True)


LOCATE = "import datasette, os; print(os.path.dirname(datasette.__file__))"
GERMAN = {
    'value="Apply"': 'value="Anwenden"',
    ">Search:</label>": ">Suche:</label>",
    "Sort by": "Sortieren nach",
    " descending</label>": " absteigend</label>",
}


def new_look(app: Running) -> str:
    """Restart with an overridden table template (--template-dir): its filter form in German."""
    found = subprocess.run(
        [str(install() / "python"), "-c", LOCATE],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    template = (Path(found) / "templates/table.html").read_text(encoding="utf-8")
    for english, german in GERMAN.items():
        template = template.replace(english, german)
    templates = app.home / "templates"
    templates.mkdir(exist_ok=True)
    (templates / "table.html").write_text(template, encoding="utf-8")
    servers = app.extra["servers"]
    stop(servers[-1][0])
    servers.append(_serve(app.home, app.extra["port"], templates))
    _login(app.url, servers[-1][1], app.storage_state)
    return "an overridden table template: the filter and sort form in German"


def _rows(app: Running, sql: str, *args: object) -> list[tuple]:
    with closing(sqlite3.connect(app.home / "field.db")) as db:
        return db.execute(sql, args).fetchall()


def _shown(app: Running, final_url: str | None, table: str = "sightings") -> dict | None:
    """Datasette's JSON for the page the run ended on (its rows as objects), or None."""
    if not final_url:
        return None
    parts = urllib.parse.urlsplit(final_url)
    if not parts.path.rstrip("/").endswith(f"/field/{table}"):
        return None
    query = urllib.parse.parse_qsl(parts.query) + [("_shape", "objects"), ("_size", "max")]
    body = app.get(f"{app.url}{parts.path.rstrip('/')}.json?{urllib.parse.urlencode(query)}")
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        return None


def _ids(shown: dict | None) -> set[int]:
    return {row["id"] for row in (shown or {}).get("rows", [])}


# --- tasks ---------------------------------------------------------------------------


def gen_filter(rng: random.Random, app: Running) -> Values:
    return {"species": rng.choice(SPECIES)}


def check_filter(app: Running, v: Values, final_url: str | None) -> bool:
    want = {r[0] for r in _rows(app, "SELECT id FROM sightings WHERE species = ?", v["species"])}
    return bool(want) and _ids(_shown(app, final_url)) == want


async def do_filter(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/field/sightings")
    await page.select_option("select[name=_filter_column]", "species")
    await page.fill("input[name=_filter_value]", v["species"])
    async with page.expect_navigation():
        await page.click("form.filters input[type=submit]")


def gen_more(rng: random.Random, app: Running) -> Values:
    return {"count": str(rng.randint(30, 55))}


def check_more(app: Running, v: Values, final_url: str | None) -> bool:
    want = {r[0] for r in _rows(app, "SELECT id FROM sightings WHERE count > ?", int(v["count"]))}
    return bool(want) and _ids(_shown(app, final_url)) == want


async def do_more(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/field/sightings")
    await page.select_option("select[name=_filter_column]", "count")
    await page.select_option("select[name=_filter_op]", "gt")
    await page.fill("input[name=_filter_value]", v["count"])
    async with page.expect_navigation():
        await page.click("form.filters input[type=submit]")


def gen_sort(rng: random.Random, app: Running) -> Values:
    return {"column": rng.choice(COLUMNS)}


def check_sort(app: Running, v: Values, final_url: str | None) -> bool:
    """Every sighting shown, highest value of the column first."""
    shown = _shown(app, final_url)
    if not shown or len(shown.get("rows", [])) != len(_rows(app, "SELECT id FROM sightings")):
        return False
    values = [row[v["column"]] for row in shown["rows"]]
    return values == sorted(values, reverse=True)


async def do_sort(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/field/sightings")
    for _ in range(2):  # the column's header sorts ascending, then descending
        async with page.expect_navigation():
            await page.click(f'th[data-column="{v["column"]}"] a')


def gen_search(rng: random.Random, app: Running) -> Values:
    return {"term": rng.choice(SPECIES)}


def check_search(app: Running, v: Values, final_url: str | None) -> bool:
    want = {r[0] for r in _rows(app, "SELECT rowid FROM sightings_fts WHERE sightings_fts MATCH ?",
                                v["term"])}  # fmt: skip
    return bool(want) and _ids(_shown(app, final_url)) == want


async def do_search(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/field/sightings")
    await page.fill("#_search", v["term"])
    await page.press("#_search", "Enter")
    await page.wait_for_url("**_search=**")


def gen_site(rng: random.Random, app: Running) -> Values:
    return {"site": rng.choice(SITES), "species": rng.choice(SPECIES)}


def check_site(app: Running, v: Values, final_url: str | None) -> bool:
    want = {r[0] for r in _rows(app, "SELECT id FROM sightings WHERE site = ? AND species = ?",
                                v["site"], v["species"])}  # fmt: skip
    return bool(want) and _ids(_shown(app, final_url)) == want


async def do_site(page, app: Running, v: Values) -> None:  # type: ignore[no-untyped-def]
    await page.goto(f"{app.url}/field/sightings")
    await page.select_option("select[name=_filter_column]", "site")
    await page.fill("input[name=_filter_value]", v["site"])
    async with page.expect_navigation():
        await page.click("form.filters input[type=submit]")
    await page.locator("select[name^=_filter_column]").last.select_option("species")
    await page.locator("input[name^=_filter_value]").last.fill(v["species"])
    async with page.expect_navigation():
        await page.click("form.filters input[type=submit]")


TASKS = [
    Task("filter", "show the sightings where species is {species}", gen_filter, check_filter,
         do_filter, start="/field/sightings"),
    Task("greater-than", "show the sightings with a count greater than {count}", gen_more,
         check_more, do_more, start="/field/sightings"),
    Task("sort", "sort the sightings by {column}, highest first", gen_sort, check_sort, do_sort,
         start="/field/sightings"),
    Task("search", "search the sightings for {term}", gen_search, check_search, do_search,
         start="/field/sightings"),
    Task("two-filters", "show the {species} sightings at the {site}", gen_site, check_site,
         do_site, start="/field/sightings"),
]  # fmt: skip

APP = App("datasette", "Datasette 0.65 (PyPI), SQLite, Python", start, TASKS, new_look, install)
