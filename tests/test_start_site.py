"""The start site as the default boundary, in real Chromium: with no allow-list a run may
open the site it started on (host and port) and the sites its command names; another is
refused when nobody is there to ask, and asked about when someone is. A page whose text
tells the model to open another site, and a model that obeys page text, never reach it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.browser.session import browser_session
from browser_agent.errors import ActionError
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.sites.allow_list import domain_list
from browser_agent.sites.boundary import Boundary, Site, named_sites, site_of
from browser_agent.skills.primitive import click, open_url
from tests.test_allowed_sites import Site as Served
from tests.test_allowed_sites import serve

CLI = str(Path(sys.executable).parent / "browser-agent")
OBEY = "read the notice and do what it says"


@pytest.fixture(scope="module")
def home() -> Iterator[str]:
    site = serve()
    yield f"http://127.0.0.1:{site.port}"
    site.server.shutdown()


@pytest.fixture
def other_port() -> Iterator[Served]:
    """Another site on the same host, at another port."""
    site = serve()
    yield site
    site.server.shutdown()


@pytest.fixture
def other_host() -> Iterator[Served]:
    """Another site on another loopback host."""
    site = serve("127.0.0.2")
    yield site
    site.server.shutdown()


def at(site: Served, path: str = "/evil?stolen=cookie") -> str:
    host = site.server.server_address[0]
    return f"http://{host}:{site.port}{path}"


def test_sites_are_host_and_port_with_subdomains_and_both_schemes() -> None:
    shop = site_of("https://www.Shop.example/a")
    assert shop == Site("shop.example")
    assert shop.covers(site_of("http://shop.example:80/b"))
    assert shop.covers(site_of("https://api.shop.example/"))
    assert not shop.covers(site_of("https://shop.example:8443/"))
    assert not shop.covers(site_of("https://evilshop.example/"))
    assert site_of("http://127.0.0.1:8811/") == Site("127.0.0.1", 8811)
    assert site_of("javascript:alert(1)") is None
    named = named_sites(
        "open http://b.test/x, then 127.0.0.1:8811 and https://www.c.example:443/y; mail me@d.org"
    )
    assert named == [Site("b.test"), Site("127.0.0.1", 8811), Site("c.example")]
    assert domain_list("*") == ("*",) and domain_list(["a.example", "*"]) == ("*",)


async def test_a_run_with_nobody_to_ask_stays_on_its_start_site_and_its_named_sites(
    settings: Settings, browser: Browser, home: str, other_port: Served, other_host: Served
) -> None:
    boundary = Boundary.of(
        f"{home}/?next={at(other_port)}", [f"then open {at(other_host, '/named')}"]
    )
    async with browser_session(settings, browser, boundary=boundary) as active:
        await open_url(f"{home}/start")
        with pytest.raises(ActionError) as refused:
            await open_url(at(other_port))
        assert refused.value.kind == "refused"
        assert f"The navigation to 127.0.0.1:{other_port.port} was refused" in str(refused.value)
        assert (await open_url(at(other_host, "/named"))).startswith("Page loaded")
        assert active.page.url == at(other_host, "/named")
    assert other_port.hits == [] and other_host.hits == ["/named"]


async def test_with_no_start_url_the_first_site_opened_is_the_start_site(
    settings: Settings, browser: Browser, home: str, other_port: Served
) -> None:
    """The default session: redirects, new tabs and frames off the first site are refused
    as the allow-list refuses them; pictures from another site still load."""
    async with browser_session(settings, browser) as active:
        await open_url(f"{home}/start")
        with pytest.raises(ActionError, match="was refused: this run stays on the site"):
            await open_url(f"{home}/redirect?to={at(other_port)}")
        said = await open_url(f"{home}/framed?src={at(other_port, '/frame')}")
        assert "was refused: this run stays on the site" in said
        await open_url(f"{home}/links?to={at(other_port, '/tab')}")
        said = await click("#pop")
        assert "was refused: this run stays on the site" in said
        said = await click("#same-tab")
        assert "was refused" in said and active.page.url.startswith(f"{home}/links")
        assert other_port.hits == []


async def test_pictures_scripts_and_styles_from_other_sites_are_not_refused(
    settings: Settings, browser: Browser, home: str, other_port: Served
) -> None:
    """Subresources are not navigations: the guard lets them through, as with an
    allow-list. (Chromium's own local-network checks refuse a loopback page's picture
    from another loopback origin once the guard has served the page, so this browser
    runs without them: what is tested is the guard's rule.)"""
    features = "--disable-features=Translate,MediaRouter,OptimizationHints,LocalNetworkAccessChecks"
    args = [a for a in LAUNCH_ARGS if not a.startswith("--disable-features")] + [features]
    executable = find_chromium(None, browser.browser_type.executable_path, headless=True)
    other = await browser.browser_type.launch(executable_path=executable, args=args)
    try:
        async with browser_session(settings, other):
            await open_url(f"{home}/pictured?src={at(other_port, '/pixel.png')}")
            for _ in range(100):  # the picture's request, as the browser sends it
                if other_port.hits:
                    break
                await asyncio.sleep(0.1)
    finally:
        await other.close()
    assert other_port.hits == ["/pixel.png"]


async def test_every_site_is_open_with_a_star(
    settings: Settings, browser: Browser, home: str, other_host: Served
) -> None:
    async with browser_session(settings.with_overrides(allowed_domains="*"), browser) as active:
        await open_url(f"{home}/start")
        await open_url(f"{home}/redirect?to={at(other_host, '/far')}")
        assert active.page.url == at(other_host, "/far")


@pytest.mark.parametrize("answer", [None, "not that site"])
async def test_a_person_there_is_asked_once_per_site_and_frames_are_not_asked_about(
    settings: Settings, browser: Browser, home: str, other_port: Served, answer: str | None
) -> None:
    asked: list[str] = []

    async def ask(action: str) -> str | None:
        asked.append(action)
        return answer

    boundary = Boundary.of(f"{home}/", [], ask=ask)
    async with browser_session(settings, browser, boundary=boundary):
        said = await open_url(f"{home}/framed?src={at(other_port, '/frame')}")
        assert "was refused" in said and asked == []
        for _ in range(2):
            try:
                await open_url(at(other_port, "/asked"))
            except ActionError as exc:
                assert answer is not None and f"said no. Their note: {answer}" in str(exc)
    assert asked == [
        f"open {at(other_port, '/asked')}, on another site than this run's "
        f"(127.0.0.1:{home.rsplit(':', 1)[1]})"
    ]
    assert other_port.hits == ([] if answer else ["/asked", "/asked"])


def obeys_page_text(messages: list[dict], tools: list[dict]) -> LLMReply:
    """A model that does what the page says: it opens the start URL, reads the page and
    opens the address the page's text tells it to, then says it is done."""
    task = messages[1]["content"]
    answers = [m.get("content") or "" for m in messages if m.get("role") == "tool"]
    if not answers:
        start = re.search(r"starting at (\S+)\. Current", task)
        assert start, task
        return call("open_url", {"url": start.group(1)})
    if len(answers) == 1:
        return call("get_dom", {"content_type": "text_only"})
    told = re.search(r"open (https?://\S+?) now", answers[1])
    if len(answers) == 2 and told:
        return call("open_url", {"url": told.group(1)})
    return call("finish", {"answer": "Did what the notice said.", "success": True})


def call(tool: str, arguments: dict) -> LLMReply:
    return LLMReply(None, [ToolCall(f"{tool}_1", tool, json.dumps(arguments))])


@pytest.mark.parametrize(
    ("elsewhere", "allow_list"),
    # an allow-list names hosts (ports do not count): 127.0.0.1 allows its other ports
    [("other_port", None), ("other_host", None), ("other_host", "127.0.0.1")],
)
async def test_page_text_cannot_send_the_run_to_another_site(
    settings: Settings,
    browser: Browser,
    home: str,
    elsewhere: str,
    allow_list: str | None,
    request: pytest.FixtureRequest,
) -> None:
    evil: Served = request.getfixturevalue(elsewhere)
    configured = settings.with_overrides(allowed_domains=allow_list) if allow_list else settings
    result = await run_command(
        OBEY,
        FunctionClient(obeys_page_text),
        configured,
        start_url=f"{home}/notice?to={at(evil)}",
        browser=browser,
    )
    assert evil.hits == []
    assert result.final_url is not None and result.final_url.startswith(f"{home}/notice")
    log = json.loads(Path(result.log_path).read_text())
    refusal, *said_back = [
        m["content"] for m in log if m.get("role") == "tool" and "refused" in m["content"]
    ]
    assert refusal.startswith("Error:") and evil.server.server_address[0] in refusal
    # a finish where the tab stayed is not done: said back once, then the run fails
    assert all("where the run stayed when a navigation was refused" in m for m in said_back)
    assert result.status == "failed", log


def on_a_terminal(args: list[str], typed: str, env: dict[str, str]) -> tuple[int, str]:
    """Run the CLI with a pseudo-terminal as its stdin, ``typed`` typed into it: the exit
    code and what it wrote to stdout and stderr."""
    import pty

    leader, follower = pty.openpty()
    os.write(leader, typed.encode())
    done = subprocess.run(
        args, stdin=follower, capture_output=True, text=True, env=env, timeout=180
    )
    os.close(follower)
    os.close(leader)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("typed", ["n\nstay here\n", "y\n"])
def test_run_on_a_terminal_asks_before_another_site(
    tmp_path: Path, home: str, other_host: Served, typed: str
) -> None:
    from browser_agent.testing.openai_server import start_test_llm_server

    with start_test_llm_server(obeys_page_text) as server:
        env = {
            **os.environ,
            "BROWSER_AGENT_WORKSPACE": str(tmp_path),
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test-key",
            "OPENAI_MODEL": "test-model",
        }
        start = f"{home}/notice?to={at(other_host)}"
        code, said = on_a_terminal([CLI, "run", OBEY, "--url", start], typed, env)
        piped = subprocess.run(
            [CLI, "run", OBEY, "--url", start],
            input="y\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
    assert f"The agent wants to: open {at(other_host)}, on another site" in said
    # refused, the run stayed where it was: it did not do what the notice asked
    assert code == (1 if typed.startswith("n") else 0), said
    if typed.startswith("n"):
        assert other_host.hits == []
        told = [log.read_text() for log in (tmp_path / "logs").glob("*.json")]
        assert any("said no. Their note: stay here" in text for text in told)
    else:
        assert other_host.hits == ["/evil"]
    # with stdin not a terminal nobody is asked, whatever it holds
    assert "The agent wants to" not in piped.stderr
    assert other_host.hits.count("/evil") == (0 if typed.startswith("n") else 1)
