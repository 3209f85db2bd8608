"""Probe of the trust boundaries, by hand, against the real product on this machine.

Every command runs through the installed ``browser-agent`` in a process of its own (real
Chromium, SQLite stores in temporary folders removed afterwards), talking only to servers
this script starts on 127.0.0.1. Four cases, one line per try:

- tamper: a skill harvested on the demo shop has its store row (or workspace) changed as
  someone who can write them would; a command it matches is run; the added Python writes a
  marker file if it is ever imported. Counts the tries whose code ran.
- cookie: the console (``serve``) is opened in Chromium from its token URL, then a logger
  on another port; everything the logger received is replayed at the console as a cookie,
  a bearer token and a session header. Counts the answers that let it in (2xx/3xx).
- secrets: a login form sent by GET, run with ``--secret``, harvested, validated, routed
  and shown. Counts the places holding the password (plain, URL- or HTML-encoded).
- crashes: pages that keep navigating and a redirect loop, through ``run --json`` and
  ``dom``. Counts the runs with a traceback or a ``--json`` that does not parse.

The key of checked-skill marks is made in a temporary state folder, not the user's own.
Exit code 0 when every count is zero, 1 otherwise. Run:
    .venv/bin/python scripts/probe_trust.py
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from urllib.parse import urlsplit

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site.server import start_demo_site
from browser_agent.names import __version__
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan_data import read_plan
from browser_agent.settings import load_settings
from browser_agent.skills.check_key import mark_name
from browser_agent.skills.loader import source_hash
from browser_agent.skills.stored import CHECKED

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the sites of tests/ are reused as they are
from tests.test_console import Served, csrf_of, request  # noqa: E402
from tests.test_console_session import logging_server, replays, session_of  # noqa: E402
from tests.test_secret_addresses import FORMS, PASSWORD, USER, GetLoginSite  # noqa: E402

CLI = str(Path(sys.executable).parent / "browser-agent")
PAGES = ROOT / "tests" / "pages"
MOVING = ["refresh.html", "refresh-away.html", "reload.html", "moves-when-read.html"]
TAUGHT, ROUTED = "open Trail Blazer 2", "open Road Glide 5"
Tamper = Callable[[Path, str], None]  # changes the workspace so its code writes the marker


def environment(workspace: Path, state: Path, **more: str) -> dict[str, str]:
    """A clean environment for one command: no model endpoint, this workspace and state."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "BROWSER_AGENT_"))}
    kept.update(BROWSER_AGENT_WORKSPACE=str(workspace), XDG_STATE_HOME=str(state), COLUMNS="250")
    return {**kept, **more}


def cli(workspace: Path, state: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``browser-agent ARGS`` in a process of its own."""
    env = environment(workspace, state, **env)
    return subprocess.run([CLI, *args], env=env, capture_output=True, text=True, timeout=300)


def parsed(stdout: str) -> dict | None:
    """The object ``--json`` printed, or None when it does not parse."""
    try:
        found = json.loads(stdout)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def sql(workspace: Path, statement: str, *values: object) -> list[tuple]:
    """One statement on the workspace's SQLite store, committed."""
    with sqlite3.connect(workspace / "browser_agent.db") as db:
        return db.execute(statement, values).fetchall()


def the_row(workspace: Path) -> dict[str, str]:
    """The current skill row's name, plan, code, hash and module path."""
    names = ("name", "plan", "source", "source_hash", "module_path")
    (row,) = sql(workspace, f"SELECT {', '.join(names)} FROM skill WHERE current = 1")
    return dict(zip(names, row, strict=True))


def row_bytes(row: dict[str, str]) -> bytes:
    """Every byte of a row a mark speaks for, with the release."""
    parts = (__version__, row["name"], row["plan"], row["source"], row["source_hash"])
    return "\0".join(parts).encode()


def payload(marker: str) -> str:
    """Python that writes ``marker`` when its module is imported."""
    return f"\nimport pathlib\npathlib.Path({marker!r}).write_text('ran')\n"


def add_code(workspace: Path, marker: str, rehash: bool = True) -> dict[str, str]:
    """The row's code with the payload added (its hash recomputed when ``rehash``)."""
    source = the_row(workspace)["source"] + payload(marker)
    digest = source_hash(source) if rehash else the_row(workspace)["source_hash"]
    sql(workspace, "UPDATE skill SET source = ?, source_hash = ?", source, digest)
    return the_row(workspace)


def mark(workspace: Path, name: str) -> None:
    """A mark file in the workspace's folder of checked rows."""
    (workspace / CHECKED).mkdir(parents=True, exist_ok=True)
    (workspace / CHECKED / name).touch()


def sha256_mark(workspace: Path, marker: str) -> None:
    """Payload added, and a mark named as marks once were (a plain SHA-256 of the row)."""
    mark(workspace, hashlib.sha256(row_bytes(add_code(workspace, marker))).hexdigest())


def guessed_marks(workspace: Path, marker: str) -> None:
    """Payload added, and marks under keys one might guess."""
    row = row_bytes(add_code(workspace, marker))
    for key in (b"\0" * 32, b"", b"browser-agent", hashlib.sha256(b"").digest()):
        mark(workspace, mark_name(key, row))


def plan_edited(workspace: Path, marker: str) -> None:
    """The plan changed into another valid plan; the code (with the payload) left apart."""
    plan = json.loads(the_row(workspace)["plan"])
    plan["params"][0]["description"] = "The product to open"
    read_plan(json.dumps(plan))  # still a plan that reads back
    add_code(workspace, marker)
    sql(workspace, "UPDATE skill SET plan = ?", json.dumps(plan))


def hash_blanked(workspace: Path, marker: str) -> None:
    """Payload added and the hash left blank."""
    add_code(workspace, marker)
    sql(workspace, "UPDATE skill SET source_hash = ''")


def harvested_file(workspace: Path, marker: str) -> None:
    """Payload added to the copy in skills/harvested/ only."""
    path = workspace / the_row(workspace)["module_path"]
    path.write_text(path.read_text() + payload(marker))


def module_elsewhere(workspace: Path, marker: str) -> None:
    """The row's module path pointed at a file of the writer's, holding the payload."""
    (workspace / "skills" / "theirs.py").write_text(payload(marker))
    sql(workspace, "UPDATE skill SET module_path = 'skills/theirs.py'")


def code_in_plan(workspace: Path, marker: str) -> None:
    """The payload, with quotes that would end a string or docstring, in the plan's texts;
    code and hash made from that plan by the code generator (a consistent row)."""
    plan = json.loads(the_row(workspace)["plan"])
    breakout = f"\n\"\"\"'''{payload(marker)}'''\"\"\""
    heading = plan["steps"][1]["targets"]["selector"]["context"]
    for holder, key in [(plan["params"][0], "description"), (heading, "heading")] + [
        (plan, key) for key in ("command", "source", "note")
    ]:
        holder[key] += breakout
    text = json.dumps(plan)
    code = generate_module(read_plan(text), the_row(workspace)["name"])
    made = (text, code, source_hash(code))
    sql(workspace, "UPDATE skill SET plan = ?, source = ?, source_hash = ?", *made)


#: name: (the change, whether run must pass the skill over)
TAMPERS: dict[str, tuple[Tamper, bool]] = {
    "code added, hash kept": (partial(add_code, rehash=False), True),
    "code added, hash recomputed": (add_code, True),
    "code added, old-style sha256 mark": (sha256_mark, True),
    "code added, marks under guessed keys": (guessed_marks, True),
    "plan edited to another valid plan": (plan_edited, True),
    "code added, hash blanked": (hash_blanked, True),
    "code in skills/harvested/ file": (harvested_file, False),
    "module_path to writer's file": (module_elsewhere, False),
    "code in plan texts, code remade": (code_in_plan, False),
}


def routed(workspace: Path, state: Path, shop: str) -> dict:
    """The routed command's ``--json`` object (its stderr's end when there is none)."""
    done = cli(workspace, state, "run", ROUTED, "--url", shop, "--json")
    return parsed(done.stdout) or {"status": f"no --json: {done.stderr.strip()[-80:]}"}


def try_tamper(label: str, ws: Path, state: Path, shop: str, must_pass: bool, marker: Path) -> bool:
    """Run the routed command on a tampered workspace; True when the payload ran."""
    result, name = routed(ws, state, shop), the_row(ws)["name"]
    said = [p for p in result.get("passed_over", []) if p.get("skill") == name]
    how = f"passed over ({said[0]['state']}: {said[0]['why'][:50]})" if said else "not passed over"
    note = "" if bool(said) == must_pass else "  [unexpected]"
    status = f"{result['status']}, {result.get('llm_calls')} model calls"
    print(f"  tamper {label}: code ran={'YES' if marker.exists() else 'no'}; {how}; {status}{note}")
    return marker.exists()


def copied_from_another(base: Path, tmp: Path, mine: Path, shop: str) -> bool:
    """A workspace another person tampered and marked under their own key, copied here."""
    theirs, their_state = tmp / "theirs", tmp / "their-state"
    shutil.copytree(base, theirs)
    marker = tmp / "ran-copied"
    row = add_code(theirs, str(marker))
    cli(theirs, their_state, "skills")  # their key, made on first use
    key = (their_state / "browser-agent" / "skill-marks.key").read_bytes()
    mark(theirs, mark_name(key, row_bytes(row)))
    routed(theirs, their_state, shop)  # their own product trusts their mark
    trusted = marker.exists()
    marker.unlink(missing_ok=True)
    shutil.copytree(theirs, tmp / "copy")
    ran = try_tamper("copied workspace, their key's mark", tmp / "copy", mine, shop, True, marker)
    print(f"    (in their own workspace, under their key, the code ran: {trusted})")
    return ran


def tamper_case(tmp: Path) -> tuple[int, int, bool]:
    """Harvest a skill, tamper with copies of its workspace; (ran, tries, control ok)."""
    mine, base = tmp / "state", tmp / "base"
    with start_demo_site(port=0) as site:
        shop = f"{site.url}/"
        cli(base, mine, "run", TAUGHT, "--url", shop, "--model", "offline", "--json")
        cli(base, mine, "harvest", "--all")
        control = routed(shutil.copytree(base, tmp / "control"), mine, shop)
        ok = control.get("status") == "succeeded" and control.get("llm_calls") == 0
        print(f"  tamper control (untouched copy): routed with no model call={ok}")
        ran = 0
        for number, (label, (change, must_pass)) in enumerate(TAMPERS.items()):
            workspace, marker = shutil.copytree(base, tmp / f"t{number}"), tmp / f"ran-{number}"
            change(workspace, str(marker))
            ran += try_tamper(label, workspace, mine, shop, must_pass, marker)
        ran += copied_from_another(base, tmp, mine, shop)
    return ran, len(TAMPERS) + 1, ok


def serve(workspace: Path, state: Path) -> Served:
    """``browser-agent serve`` on a free port of 127.0.0.1, with the offline planner."""
    env = environment(workspace, state)
    process = subprocess.Popen(
        [CLI, "serve", "--port", "0", "--model", "offline"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    url = line[line.index("http://") :].split()[0]
    origin = f"http://{urlsplit(url).netloc}"
    return Served(url, origin, url.split("token=")[1], workspace, process)


async def browse(console: Served, logger_origin: str) -> list[dict[str, str]]:
    """Open the console from its token URL in Chromium, then the logger, the console and
    the logger again; the browser's cookies (each as a Cookie header)."""
    async with launched_browser(load_settings()) as browser:
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(console.url)
        await page.wait_for_url(f"{console.origin}/")
        visits = [f"{logger_origin}/after", f"{console.origin}/runs", f"{logger_origin}/again"]
        for address in visits:
            await page.goto(address)
            await page.wait_for_load_state("load")
        cookies = await context.cookies()
        await context.close()
    return [{"Cookie": f"{c['name']}={c['value']}"} for c in cookies]


def every_way(seen: list[dict[str, str]], console: Served) -> list[dict[str, str]]:
    """Each value the logger received as a cookie, a bearer and a session header, besides
    the test suite's replays (cookies under the console's names, headers as they came)."""
    port = urlsplit(console.origin).port
    values = {value for headers in seen for value in headers.values()}
    tries = replays(seen, console)
    for value in values:
        for cookie in ("browser_agent_console", f"browser_agent_console_{port}", "session"):
            tries.append({"Cookie": f"{cookie}={value}"})
        tries += [{"Authorization": f"Bearer {value}"}, {"X-Console-Session": value}]
    return [{**headers, "Origin": console.origin} for headers in tries]


def cookie_case(tmp: Path) -> tuple[int, int, bool]:
    """The console's credential against a logger on another port; (leaked, tries, ok)."""
    console = serve(tmp / "console", tmp / "state")
    try:
        with logging_server() as logger:
            jar = asyncio.run(browse(console, logger.origin))
            seen = [*logger.seen, *jar]
        session = session_of(console)
        ok = request(console, "GET", "/runs", session).status == 200  # a real session opens it
        secrets_sent = {console.token, session["X-Console-Session"]}
        heard = sum(any(s in v for s in secrets_sent for v in h.values()) for h in seen)
        csrf, leaked, tries = csrf_of(console), heard, 0
        for headers in every_way(seen, console):
            form = f"csrf={csrf}&command=open+the+shop"
            for method, path, body in (("GET", "/runs", ""), ("POST", "/runs/new", form)):
                status = request(console, method, path, headers, body).status
                tries += 1
                if status < 400:
                    leaked += 1
                    print(f"  cookie LEAK: {method} {path} -> {status} with {headers}")
        print(
            f"  cookie: {len(logger.seen)} requests logged, {len(jar)} browser cookies, "
            f"{heard} carrying the token or session; {tries} replays; control session opens "
            f"/runs={ok}"
        )
    finally:
        console.process.terminate()
        console.process.wait(timeout=30)
    return leaked, tries + len(seen), ok


SECRET_FORMS = sorted({*FORMS, html.escape(PASSWORD)})


def texts(workspace: Path) -> Iterator[tuple[str, str]]:
    """(place, text) for every file of the workspace (its bytes) and every text value of
    every table of its SQLite stores, by column."""
    for path in sorted(p for p in workspace.rglob("*") if p.is_file()):
        yield str(path.relative_to(workspace)), path.read_bytes().decode("utf-8", "replace")
    for database in workspace.rglob("*.db"):
        with sqlite3.connect(database) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                cursor = db.execute(f'SELECT * FROM "{table}"')
                names = [column[0] for column in cursor.description]
                columns: dict[str, list[str]] = {}
                for row in cursor:
                    for name, value in zip(names, row, strict=True):
                        if isinstance(value, bytes):
                            value = value.decode("utf-8", "replace")
                        if isinstance(value, str):
                            columns.setdefault(f"{table}.{name}", []).append(value)
                yield from ((column, "\n".join(v)) for column, v in columns.items())


def secrets_case(tmp: Path) -> tuple[int, int, bool]:
    """A GET login run with --secret, harvested, validated, routed and shown;
    (places holding the password, places examined, whether the logins happened)."""
    workspace, state = tmp / "secrets", tmp / "state"
    env = {"BROWSER_AGENT_LLM_MODEL": "offline", "BROWSER_AGENT_ACTION_TIMEOUT_MS": "3000"}
    secret = f"GET_PW={PASSWORD}"
    with GetLoginSite() as site:
        run = [f"log in as {USER} with password {{GET_PW}}", "--url", f"{site.url}/login"]
        outputs = [cli(workspace, state, "run", *run, "--secret", secret, "--json", **env)]
        first = parsed(outputs[0].stdout) or {}
        outputs.append(cli(workspace, state, "harvest", "--all", **env))
        outputs.append(cli(workspace, state, "validate", "--all", "--secret", secret, **env))
        site.moved = True  # the routed skill falls back on sending the address
        outputs.append(cli(workspace, state, "run", *run, "--secret", secret, "--json", **env))
        second = parsed(outputs[-1].stdout) or {}
        for run_id in (first.get("run_id"), second.get("run_id")):
            outputs.append(cli(workspace, state, "show", str(run_id), "--json", **env))
        for (name,) in sql(workspace, "SELECT DISTINCT name FROM skill"):
            outputs.append(cli(workspace, state, "skills", "show", name, **env))
        ok = site.logins >= 3 and first.get("status") == "succeeded"
    places = [(f"output {i} stdout+stderr", o.stdout + o.stderr) for i, o in enumerate(outputs)]
    places += list(texts(workspace))
    found = [place for place, text in places if any(form in text for form in SECRET_FORMS)]
    for place in found:
        print(f"  secrets LEAK: {place}")
    print(
        f"  secrets: {len(outputs)} commands, {len(places)} places examined, logins "
        f"{site.logins}, routed run {second.get('status')} with {second.get('llm_calls')} "
        f"model calls; logged in={ok}"
    )
    return len(found), len(places), ok


class Pages(SimpleHTTPRequestHandler):
    """tests/pages, and /loop-a and /loop-b redirecting to each other for ever."""

    def do_GET(self) -> None:  # noqa: N802
        """A redirect for the loop, the file otherwise."""
        if self.path.startswith("/loop-"):
            self.send_response(302)
            self.send_header("Location", "/loop-b" if self.path == "/loop-a" else "/loop-a")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


def crash_case(tmp: Path) -> tuple[int, int]:
    """Moving pages and a redirect loop through run --json and dom; (crashes, runs)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Pages, directory=str(PAGES)))
    Thread(target=server.serve_forever, daemon=True).start()
    base, crashes, runs = f"http://127.0.0.1:{server.server_address[1]}", 0, 0
    ws, state = tmp / "crash", tmp / "state"
    try:
        for page in [*MOVING, "loop-a"]:
            url = f"{base}/{page}"
            ran = cli(ws, state, "run", "click Go", "--url", url, "--model", "offline", "--json")
            seen = cli(ws, state, "dom", url)
            result = parsed(ran.stdout)
            bad_run = "Traceback" in ran.stdout + ran.stderr or result is None or ran.returncode > 2
            bad_dom = "Traceback" in seen.stdout + seen.stderr or not 0 <= seen.returncode <= 2
            crashes, runs = crashes + bad_run + bad_dom, runs + 2
            said = (seen.stderr.strip().splitlines() or ["page printed"])[-1][:70]
            status = (result or {}).get("status", "NO JSON") + " TRACEBACK" * bad_run
            dom = f"{seen.returncode} ({said})" + " TRACEBACK" * bad_dom
            print(f"  crash {page}: run exit {ran.returncode} {status}; dom exit {dom}")
    finally:
        server.shutdown()
        server.server_close()
    return crashes, runs


def main() -> int:
    """Run the four cases and print their counts; 0 when all are zero."""
    with tempfile.TemporaryDirectory(prefix="probe-trust-") as folder:
        tmp = Path(folder)
        for part in ("tamper", "cookie", "secrets", "crash"):
            (tmp / part).mkdir()
        ran, tampers, tamper_ok = tamper_case(tmp / "tamper")
        leaked, replayed, cookie_ok = cookie_case(tmp / "cookie")
        found, places, secrets_ok = secrets_case(tmp / "secrets")
        crashes, runs = crash_case(tmp / "crash")
    print(
        f"tamper: {ran} ran of {tampers}; cookie: {leaked} leaked of {replayed}; "
        f"secrets: {found} leaked of {places}; crashes: {crashes} of {runs}"
    )
    controls = {"tamper": tamper_ok, "cookie": cookie_ok, "secrets": secrets_ok}
    if not all(controls.values()):
        failed = ", ".join(name for name, ok in controls.items() if not ok)
        print(f"control failed ({failed}): those counts prove nothing")
    return 0 if ran == leaked == found == crashes == 0 and all(controls.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
