"""Real web applications on 127.0.0.1, for the app benchmark and tests.

Each module here installs one application from Debian's or PyPI's packages (idempotently;
PyPI ones into a virtualenv of their own under ``~/.cache/browser-agent-apps``, never into
the product's), and starts it on a free port of 127.0.0.1 with a throwaway data folder, a
fixed admin account and seeded content, as a context manager that stops everything when
the block ends. Each also names the tasks people do there: a command template, a
generator of fresh values, a check that reads the application's own state (its database,
or its pages over HTTP) and a demonstration played with Playwright, plus the "new look" an
admin would switch to.

    from scripts.apps import APPS
    with APPS["trac"].start() as app:      # app.url, app.admin, app.storage_state
        ...
"""

from __future__ import annotations

import importlib
import os
import random
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("BROWSER_AGENT_APPS_CACHE", Path.home() / ".cache/browser-agent-apps"))
APP_NAMES = ("trac", "datasette", "wordpress", "phpmyadmin", "redmine", "mediawiki")

Values = dict[str, str]
State = Mapping[str, object]


@dataclass
class Running:
    """A started application: where it is, who its admin is, how to read its state."""

    name: str
    url: str  # its front page, no trailing slash
    admin: tuple[str, str]  # user name, password
    home: Path  # the throwaway folder of this start
    storage_state: Path  # a Playwright storage state logged in as the admin
    state: Callable[[], State]  # a snapshot of what the tasks may change, by part
    extra: dict[str, Any] = field(default_factory=dict)

    def get(self, url: str) -> str:
        """The page at ``url`` as the logged-in admin sees it (cookies of the storage state)."""
        return http_get(url, cookies=cookie_header(self.storage_state))


Person = Callable[[Any, Running, Values], Awaitable[None]]  # (playwright Page, app, values)
Check = Callable[[Running, Values, str | None], bool]  # (app, values, final URL) -> done?
Generate = Callable[[random.Random, Running], Values]


@dataclass
class Task:
    """Something people do in the application, with fresh values each time."""

    name: str
    template: str  # the command, with {name} for each value
    generate: Generate
    check: Check  # reads the application's state; never the product's verdict
    person: Person  # the task done by hand with Playwright, as a person would
    touches: frozenset[str] = frozenset()  # the state parts the task may change
    start: str = ""  # path under the app's URL the command starts from
    logged_out: bool = False  # starts in a browser with no login (no storage state)
    secrets: frozenset[str] = frozenset()  # values the command names as {NAME} secrets

    def command(self, values: Values) -> str:
        """The command for these values (a secret's value stays its {NAME} placeholder)."""
        return self.template.format(**{**values, **{s: f"{{{s}}}" for s in self.secrets}})

    def secret_values(self, values: Values) -> dict[str, str]:
        """The secrets of these values by name, given to a run out of band."""
        return {name: values[name] for name in self.secrets}


@dataclass
class App:
    """An application of the suite: how to start it, its tasks and its new look."""

    name: str
    kind: str  # what it is and what it runs on, for the report
    start: Callable[[], AbstractContextManager[Running]]
    tasks: list[Task]
    new_look: Callable[[Running], str]  # switches the look as its admin would; says what
    install: Callable[[], None]


def load(name: str) -> App:
    """The app of that name (its module is imported only when asked for)."""
    if name not in APP_NAMES:
        raise KeyError(f"no app named {name!r}; the suite has {', '.join(APP_NAMES)}")
    return importlib.import_module(f"scripts.apps.{name}").APP


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(url: str, cookies: str = "", timeout: float = 30) -> str:
    """The body of ``url`` (errors' bodies too: an app's error page is its answer)."""
    request = urllib.request.Request(url, headers={"Cookie": cookies} if cookies else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.read().decode("utf-8", "replace")


def cookie_header(storage_state: Path) -> str:
    """The Cookie header a browser with this storage state sends to 127.0.0.1."""
    import json

    state = json.loads(storage_state.read_text(encoding="utf-8"))
    return "; ".join(f"{c['name']}={c['value']}" for c in state.get("cookies", []))


def wait_until_up(
    url: str, process: subprocess.Popen[bytes] | None = None, timeout: float = 90
) -> None:
    """Wait until ``url`` answers over HTTP (any status); fail if the server died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server for {url} exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server started by us (its process group), and wait for it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, 15)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait(timeout=20)


def spawn(command: list[str], log: Path, **options: Any) -> subprocess.Popen[bytes]:
    """A server process in a process group of its own, its output to ``log``."""
    with log.open("ab") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **options
        )


def ensure_venv(name: str, requirements: list[str], check: str) -> Path:
    """A virtualenv of its own under the cache with ``requirements`` installed (once:
    a stamp file names what was installed); its bin folder."""
    home = CACHE / name
    stamp = home / ".installed"
    want = " ".join(requirements)
    if stamp.exists() and stamp.read_text() == want and (home / "bin" / check).exists():
        return home / "bin"
    subprocess.run(["python3", "-m", "venv", str(home)], check=True)
    subprocess.run(
        [str(home / "bin/python"), "-m", "pip", "install", "--quiet",
         "--disable-pip-version-check", *requirements],
        check=True,
    )  # fmt: skip
    stamp.write_text(want)
    return home / "bin"


def words(rng: random.Random, count: int) -> str:
    """A few plain words, a fresh phrase for a title or a search."""
    return " ".join(rng.choice(VOCABULARY) for _ in range(count))


def token(rng: random.Random) -> str:
    """A short mark that makes a value new in the application."""
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(2)) + str(rng.randint(10, 99))


VOCABULARY = [
    "amber",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "falcon",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lagoon",
    "meadow",
    "nectar",
    "orchid",
    "pebble",
    "quartz",
    "raven",
    "saffron",
    "tundra",
    "umber",
    "velvet",
    "willow",
    "yarrow",
    "zephyr",
    "beacon",
    "copper",
    "dune",
    "fern",
    "glacier",
]


def iter_tasks(apps: list[App]) -> Iterator[tuple[App, Task]]:
    """Every (app, task) pair, app by app."""
    for app in apps:
        for task in app.tasks:
            yield app, task
