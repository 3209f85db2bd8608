"""MiniWoB++ task pages served on 127.0.0.1, each episode seeded and scoring itself.

The ``miniwob`` package ships 130 task pages. Each page served here gets a small script
that seeds the page's random generator from the URL (``?seed=3``), starts the episode
once the page has loaded, and posts the page's own raw reward back to this server when
the episode ends, keyed by the ``episode`` the URL names. Success is MiniWoB's raw
reward of 1.0, read from the page, never the agent's own verdict.

    with start_miniwob_site() as site:
        url = site.task_url("enter-text", seed=3, episode="e1")
        ... drive the page ...
        site.reward("e1")  # -> Reward(raw=1.0, reason=...) or None
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import threading
import uuid
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlencode

from playwright.async_api import Browser

from browser_agent.errors import BrowserAgentError
from browser_agent.testing.background import BackgroundServer

#: Generous: the planner observes and decides between actions, which MiniWoB's 10 s
#: default (made for reinforcement-learning agents) does not allow for.
EPISODE_SECONDS = 120

_STARTER = """<script>
(function () {
  var params = new URLSearchParams(window.location.search);
  var episode = params.get("episode") || "";
  var seed = params.get("seed");
  var reported = false;
  core.EPISODE_MAX_TIME = %d;
  var end = core.endEpisode;
  core.endEpisode = function (reward, timeProportional, reason) {
    var live = core.EP_TIMER !== null;
    end.apply(this, arguments);
    if (!live || reported) return;
    reported = true;
    fetch("/__reward", {method: "POST", keepalive: true, body: JSON.stringify({
      episode: episode, raw: WOB_RAW_REWARD_GLOBAL, reason: String(WOB_REWARD_REASON || "")
    })});
  };
  window.addEventListener("load", function () {
    setTimeout(function () {
      if (seed !== null) Math.seedrandom(seed);
      core.startEpisodeReal();
    }, 0);
  });
})();
</script>
"""


class MiniWobMissing(BrowserAgentError, RuntimeError):
    """The ``miniwob`` package is not installed."""


def task_pages() -> Path:
    """The folder of MiniWoB++ HTML files inside the installed ``miniwob`` package."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniWobMissing("MiniWoB++ pages need the 'miniwob' package: pip install miniwob")
    return Path(next(iter(spec.submodule_search_locations))) / "html"


@dataclass
class Reward:
    """What a page reported when its episode ended."""

    raw: float
    reason: str


class MiniWobSite(BackgroundServer):
    """The HTTP server (a daemon thread) and the rewards its pages reported."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.root = task_pages()
        self.rewards: dict[str, Reward] = {}
        self._lock = threading.Lock()
        httpd = ThreadingHTTPServer((host, port), partial(_Handler, directory=str(self.root)))
        httpd.site = self  # type: ignore[attr-defined]
        super().__init__(httpd)

    def task_url(self, task: str, seed: int, episode: str | None = None) -> str:
        """The page of ``task`` whose episode is seeded with ``seed``."""
        query = urlencode({"seed": seed, "episode": episode or uuid.uuid4().hex[:12]})
        return f"{self.url}/miniwob/{task}.html?{query}"

    def reward(self, episode: str) -> Reward | None:
        """The reward the episode's page reported, or None when it has not ended."""
        with self._lock:
            return self.rewards.get(episode)

    def _record(self, episode: str, reward: Reward) -> None:
        with self._lock:
            self.rewards.setdefault(episode, reward)


async def read_instruction(browser: Browser, url: str) -> str:
    """The instruction of the episode at ``url`` (what MiniWoB asks), read from its page in
    a browser context of its own."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url)
        await page.wait_for_function("window.core && core.getUtterance().length > 0")
        return await page.evaluate("core.getUtterance()")
    finally:
        await context.close()


def start_miniwob_site(host: str = "127.0.0.1", port: int = 0) -> MiniWobSite:
    """Serve the MiniWoB++ pages on ``host:port`` (0 picks a free port)."""
    return MiniWobSite(host, port)


class _Handler(SimpleHTTPRequestHandler):
    """Static files, with the episode starter added to task pages, and reward reports."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # quiet: a benchmark prints its own figures

    def handle(self) -> None:
        # the browser may close its context while a file is on its way
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if not (path.startswith("/miniwob/") and path.endswith(".html")):
            super().do_GET()
            return
        file = Path(self.directory) / path.lstrip("/")
        try:
            html = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            self.send_error(404)
            return
        starter = _STARTER % (EPISODE_SECONDS * 1000)
        marker = html.lower().rfind("</body>")
        html = html[:marker] + starter + html[marker:] if marker >= 0 else html + starter
        body = html.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        if self.path != "/__reward":
            self.send_error(404)
            return
        length = min(int(self.headers.get("Content-Length") or 0), 65536)
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
            reward = Reward(float(data["raw"]), str(data.get("reason", "")))
            episode = str(data["episode"])
        except (ValueError, KeyError, TypeError):
            self.send_error(400)
            return
        self.server.site._record(episode, reward)  # type: ignore[attr-defined]
        self.send_response(204)
        self.end_headers()
