"""The web console (`browser-agent serve`) in a real Chromium, against a real serve process
on the demo shop; the model is the offline planner behind the local OpenAI-compatible test
server, or a scripted one that asks the person a question."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect
from sqlmodel import Session

from browser_agent.demo_site import DemoSite
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.record.teach import NO_DISPLAY, has_display
from browser_agent.settings import load_settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import update_skill
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.skill_workspaces import SEARCH, harvest_commands, run_offline, workspace_settings
from tests.test_allowed_sites import serve
from tests.test_start_site import OBEY, obeys_page_text

SHOP_COMMAND = "search for trail shoes and sort by price low to high"
ASKING = "ask me which size to choose"
QUESTION = "Which shoe size should I choose?"
SUBSCRIBE = "subscribe to the newsletter"
CLI = str(Path(sys.executable).parent / "browser-agent")
WAIT_MS = 60_000


def model(messages: list[dict], tools: list[dict]) -> LLMReply:
    """The offline planner, except for commands that ask the person (ask_user, then finish
    with the answer they got) and that subscribe (open the start page, click Subscribe,
    finish with what the click's answer said)."""
    task = messages[1].get("content") or ""
    if SUBSCRIBE in task:
        return subscribing(task, messages)
    if OBEY in task:
        return obeys_page_text(messages, tools)
    if ASKING not in task:
        return OfflinePlanner()(messages, tools)
    answers = [
        m["content"]
        for m in messages
        if m.get("role") == "tool" and "The person" in (m.get("content") or "")
    ]
    if answers == ["The person gave no answer."]:
        given_up = json.dumps({"answer": "Nobody answered.", "success": False})
        return LLMReply(None, [ToolCall("finish_1", "finish", given_up)])
    if not answers:
        return LLMReply(None, [ToolCall("ask_1", "ask_user", json.dumps({"question": QUESTION}))])
    finish = json.dumps({"answer": f"Chose what the person said: {answers[-1]}", "success": True})
    return LLMReply(None, [ToolCall("finish_1", "finish", finish)])


def subscribing(task: str, messages: list[dict]) -> LLMReply:
    answers = [m.get("content") or "" for m in messages if m.get("role") == "tool"]
    if not answers:
        start = re.search(r"starting at (\S+)\. Current", task)
        assert start, task
        return call("open_url", {"url": start.group(1)})
    if len(answers) == 1:
        return call("click", {"selector": "#newsletter-submit"})
    rejected = answers[-1].startswith("Not executed")
    return call("finish", {"answer": answers[-1], "success": not rejected})


def call(tool: str, arguments: dict) -> LLMReply:
    return LLMReply(None, [ToolCall(f"{tool}_1", tool, json.dumps(arguments))])


@dataclass
class Served:
    """A running console: its first-visit URL, its origin, its token and its process."""

    url: str
    origin: str
    token: str
    workspace: Path
    process: subprocess.Popen[str]


#: Whether a picture loaded whole, once it finished loading (a visible one may still be).
SHOWN_WHOLE = """img => img.complete ? img.naturalWidth > 0 : new Promise(done => {
    img.addEventListener("load", () => done(img.naturalWidth > 0), {once: true});
    img.addEventListener("error", () => done(false), {once: true});
})"""


@pytest.fixture(scope="module")
def llm_server() -> Iterator[LLMTestServer]:
    with start_test_llm_server(model) as server:
        yield server


def environment(workspace: Path, llm: LLMTestServer, **settings: str) -> dict[str, str]:
    """The environment of a browser-agent process on ``workspace`` using the test model."""
    return {
        **os.environ,
        **settings,
        "BROWSER_AGENT_WORKSPACE": str(workspace),
        "OPENAI_BASE_URL": llm.base_url,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_MODEL": "test-model",
    }


def start_console(
    workspace: Path, llm: LLMTestServer, *args: str, **settings: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CLI, "serve", *args],
        env=environment(workspace, llm, **settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextmanager
def serving(workspace: Path, llm: LLMTestServer, **settings: str) -> Iterator[Served]:
    """A serve process on a free port of 127.0.0.1, stopped afterwards."""
    process = start_console(workspace, llm, "--port", "0", **settings)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
        assert match, f"no URL in {line!r}: {process.stderr.read() if process.stderr else ''}"
        yield Served(match.group(0), match.group(1), match.group(2), workspace, process)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def console(
    tmp_path_factory: pytest.TempPathFactory, llm_server: LLMTestServer
) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("console"), llm_server) as served:
        yield served


@asynccontextmanager
async def visiting(browser: Browser, served: Served) -> AsyncIterator[Page]:
    """A fresh context that has visited the console's URL (and so holds its session)."""
    context = await browser.new_context()
    opened = await context.new_page()
    await opened.goto(served.url)
    await opened.wait_for_url(f"{served.origin}/")  # the session is kept, the token dropped
    try:
        yield opened
    finally:
        await context.close()


@pytest_asyncio.fixture
async def page(browser: Browser, console: Served) -> AsyncIterator[Page]:
    async with visiting(browser, console) as opened:
        yield opened


async def start_run(page: Page, command: str, start_url: str) -> None:
    await page.get_by_label("Command").fill(command)
    await page.get_by_label("Start URL").fill(start_url)
    await page.get_by_role("button", name="Run").click()
    await page.wait_for_url(re.compile(r"/live/\w+$"))


def stored_run(console: Served, run_id: str) -> Run:
    engine = open_store(load_settings().with_overrides(workspace=console.workspace))
    with Session(engine) as db:
        run = db.get(Run, run_id)
    assert run is not None
    return run


async def run_id_of(page: Page) -> str:
    link = page.locator("#stored a")
    await expect(link).to_be_visible()
    return (await link.inner_text()).removeprefix("run ")


async def test_a_shop_command_from_the_form_shows_its_steps_and_succeeds(
    page: Page, console: Served, demo: DemoSite
) -> None:
    assert urlsplit(page.url).query == ""  # the token is out of the URL
    await start_run(page, SHOP_COMMAND, f"{demo.url}/")
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=WAIT_MS)
    steps = page.locator("li.step")
    assert await steps.count() >= 3
    assert "enter_text" in await steps.evaluate_all("els => els.map(e => e.dataset.tool)")
    await expect(page.locator("li.step .target").first).not_to_be_empty()
    thumb = page.locator("img.thumb").first
    await expect(thumb).to_be_visible()
    assert await thumb.evaluate(SHOWN_WHOLE)
    assert int(await page.locator("#llm").inner_text()) > 0
    assert int(await page.locator("#tokens").inner_text()) > 0
    await expect(page.locator("#answer-text")).not_to_be_empty()
    run = stored_run(console, await run_id_of(page))
    assert (run.status, run.command) == ("succeeded", SHOP_COMMAND)
    await page.locator("#stored a").click()  # the stored run keeps the screenshots
    await expect(page.locator("li.step")).to_have_count(run.steps)
    await expect(page.locator("img.thumb").first).to_be_visible()


@pytest.mark.skipif(has_display(), reason="a display is there: Record would open a window")
async def test_record_with_no_display_and_no_browser_endpoint_says_so(
    page: Page, console: Served
) -> None:
    await page.get_by_label("Command").fill("find shoes")
    await page.get_by_role("button", name="Record").click()
    await expect(page.locator(".problem")).to_have_text(NO_DISPLAY)


async def test_a_question_is_answered_from_the_page_and_the_run_uses_it(
    page: Page, console: Served, demo: DemoSite
) -> None:
    await start_run(page, ASKING, f"{demo.url}/")
    await expect(page.locator("#question-text")).to_have_text(QUESTION, timeout=WAIT_MS)
    await page.get_by_label("Answer").fill("size 44, please")
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=WAIT_MS)
    await expect(page.locator("#answer-text")).to_contain_text("size 44, please")
    await expect(page.locator("#question")).to_be_hidden()


async def test_a_question_nobody_answers_in_time_lets_the_run_carry_on(
    browser: Browser, llm_server: LLMTestServer, demo: DemoSite, tmp_path: Path
) -> None:
    with serving(tmp_path, llm_server, BROWSER_AGENT_ASK_TIMEOUT_S="0.5") as served:
        async with visiting(browser, served) as page:
            await start_run(page, ASKING, f"{demo.url}/")
            await expect(page.locator("#status")).to_have_text("failed", timeout=WAIT_MS)
            await expect(page.locator("#answer-text")).to_have_text("Nobody answered.")


async def test_a_rejected_action_is_not_done_and_the_planner_reads_the_note(
    page: Page, console: Served, demo: DemoSite, llm_server: LLMTestServer
) -> None:
    await page.get_by_label("Approve actions").check()
    await start_run(page, SUBSCRIBE, f"{demo.url}/")
    await expect(page.locator("#approval-action")).to_contain_text("Subscribe", timeout=WAIT_MS)
    await expect(page.locator("li.step")).to_have_count(1)  # open_url needed no approval
    await page.get_by_label("Note").fill("no more mail, thanks")
    await page.get_by_role("button", name="Reject").click()
    await expect(page.locator("#status")).to_have_text("failed", timeout=WAIT_MS)
    await expect(page.locator("#answer-text")).to_contain_text("no more mail, thanks")
    step = page.locator("li.step").nth(1)
    await expect(step).to_have_attribute("data-tool", "click")
    await expect(step).to_contain_text("Not executed: the person rejected")
    told = [
        m["content"]
        for request in llm_server.requests
        for m in request["messages"]
        if m.get("role") == "tool" and "no more mail, thanks" in (m.get("content") or "")
    ]
    assert told


async def test_an_approved_action_is_done(page: Page, console: Served, demo: DemoSite) -> None:
    await page.get_by_label("Approve actions").check()
    await start_run(page, SUBSCRIBE, f"{demo.url}/")
    await expect(page.locator("#approval-action")).to_contain_text("Subscribe", timeout=WAIT_MS)
    await page.get_by_role("button", name="Approve").click()
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=WAIT_MS)
    await expect(page.locator("li.step[data-tool=click]")).to_contain_text("Clicked")


async def test_without_approval_mode_nothing_waits(
    page: Page, console: Served, demo: DemoSite
) -> None:
    await start_run(page, SUBSCRIBE, f"{demo.url}/")
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=WAIT_MS)
    await expect(page.locator("#approval")).to_be_hidden()


@pytest.mark.parametrize("decision", ["Reject", "Approve"])
async def test_another_site_a_page_asks_for_waits_for_the_person(
    page: Page, console: Served, decision: str
) -> None:
    """Without approval mode too: the console asks before the run leaves its start site."""
    home, elsewhere = serve(), serve("127.0.0.2")
    try:
        evil = f"http://127.0.0.2:{elsewhere.port}/evil?stolen=cookie"
        await start_run(page, OBEY, f"http://127.0.0.1:{home.port}/notice?to={evil}")
        question = page.locator("#approval-action")
        await expect(question).to_contain_text(f"open {evil}, on another site", timeout=WAIT_MS)
        await page.get_by_role("button", name=decision).click()
        # refused, the run stayed where it was: it did not do what it was asked
        ended = "failed" if decision == "Reject" else "succeeded"
        await expect(page.locator("#status")).to_have_text(ended, timeout=WAIT_MS)
        opened = page.locator("li.step[data-tool=open_url]").nth(1)
        if decision == "Reject":
            await expect(opened).to_contain_text("The person was asked and said no")
            assert elsewhere.hits == []
        else:
            await expect(opened).to_contain_text("Page loaded")
            assert elsewhere.hits == ["/evil"]
    finally:
        home.server.shutdown()
        elsewhere.server.shutdown()


@pytest.mark.parametrize(
    ("typed", "code", "said"),
    [("n\nno more mail, thanks\n", 1, "no more mail, thanks"), ("y\n", 0, "Clicked")],
)
def test_run_approve_asks_on_stdin(
    tmp_path: Path, llm_server: LLMTestServer, demo: DemoSite, typed: str, code: int, said: str
) -> None:
    done = subprocess.run(
        [CLI, "run", SUBSCRIBE, "--url", f"{demo.url}/", "--approve"],
        input=typed,
        capture_output=True,
        text=True,
        env=environment(tmp_path, llm_server),
        timeout=120,
    )
    assert done.returncode == code, done.stderr
    assert 'The agent wants to: click: button "Subscribe"' in done.stderr
    assert said in done.stdout


async def test_stop_interrupts_the_run_and_the_store_says_so(
    page: Page, console: Served, demo: DemoSite
) -> None:
    await start_run(page, ASKING, f"{demo.url}/")
    await expect(page.locator("#question-text")).to_have_text(QUESTION, timeout=WAIT_MS)
    await page.get_by_role("button", name="Stop").click()
    await expect(page.locator("#status")).to_have_text("interrupted", timeout=WAIT_MS)
    run = stored_run(console, await run_id_of(page))
    assert run.status == "interrupted"
    trace = page.locator("#trace")  # not succeeded: its Playwright trace was kept
    await expect(trace).to_have_text("Playwright trace")
    got = await page.evaluate(  # fetched as the page does, through the console's session
        """async (href) => {
            const answer = await fetch(href);
            const start = new Uint8Array(await answer.arrayBuffer()).slice(0, 2);
            return [answer.status, String.fromCharCode(...start)];
        }""",
        await trace.get_attribute("href"),
    )
    assert got == [200, "PK"]


async def test_runs_are_listed_by_status_and_command_and_show_their_steps(
    page: Page, console: Served, browser: Browser, demo: DemoSite
) -> None:
    settings = workspace_settings(console.workspace)
    done = await run_offline(
        "open Trail Blazer 2", "/", settings, open_store(settings), browser, demo
    )
    assert done.status == "succeeded"
    rows = page.locator("#runs tbody tr")
    await page.get_by_role("link", name="Runs").click()
    await expect(rows.filter(has_text=done.run_id)).to_have_count(1)
    await page.get_by_label("Command contains").fill("TRAIL BLAZER")
    await page.get_by_role("button", name="Filter").click()
    await expect(rows.filter(has_text=done.run_id)).to_have_count(1)
    await expect(rows.filter(has_text="sort by price")).to_have_count(0)
    await page.get_by_label("Status").select_option("failed")
    await page.get_by_role("button", name="Filter").click()
    await expect(rows.filter(has_text=done.run_id)).to_have_count(0)
    await page.get_by_label("Status").select_option("succeeded")
    await page.get_by_role("button", name="Filter").click()
    await page.get_by_role("link", name=done.run_id).click()
    await expect(page.locator("li.step")).to_have_count(done.steps)
    await expect(page.locator("#status")).to_have_text("succeeded")
    await page.get_by_text("Chat log").click()
    await expect(page.locator("#chat .said").first).to_contain_text("open Trail Blazer 2")
    await page.get_by_text("Model calls").click()
    await expect(page.locator("#iterations .said")).to_have_count(done.llm_calls)


async def test_a_skill_shows_its_source_and_can_be_retired_and_restored(
    page: Page, console: Served, browser: Browser, demo: DemoSite
) -> None:
    settings = workspace_settings(console.workspace)
    await harvest_commands([SEARCH], settings, browser, demo)
    (skill,) = current_skills(open_store(settings))
    await page.get_by_role("link", name="Skills").click()
    await page.get_by_role("link", name=skill.name).click()
    await expect(page.locator("#source")).to_contain_text(f"async def {skill.name}(")
    await page.get_by_role("button", name="Retire").click()
    await expect(page.locator("#status")).to_have_text("retired")
    (retired,) = current_skills(open_store(settings))
    assert retired.status == "retired"
    await page.get_by_role("button", name="Restore").click()
    await expect(page.locator("#status")).to_have_text("candidate")
    engine = open_store(settings)
    update_skill(engine, skill.id, source=skill.source + "\nimport os\n")  # changed in the store
    await page.reload()
    await expect(page.locator("#status")).to_have_text("refused")
    await expect(page.locator("#refused")).to_contain_text("not what its plan makes")
    await expect(page.locator("#source")).to_have_count(0)
    await page.get_by_role("link", name="Skills").click()
    await expect(page.locator("#skills td.refused")).to_contain_text("refused: its stored code")
    update_skill(engine, skill.id, source=skill.source)  # as it was, for the tests after
    await page.get_by_role("link", name=skill.name).click()
    (source_run,) = json.loads(skill.source_runs)
    await page.get_by_role("link", name=source_run).click()
    await expect(page.locator("h1")).to_have_text(SEARCH[0])


async def test_skills_are_validated_from_the_console_with_the_report_and_screenshots(
    page: Page, console: Served, browser: Browser, demo: DemoSite
) -> None:
    settings = workspace_settings(console.workspace)
    await harvest_commands([SEARCH], settings, browser, demo)
    name = "search_sort"
    await page.goto(f"{console.origin}/skills/{name}")
    await page.get_by_role("button", name="Validate").click()
    first = page.locator("section.validation").first
    await expect(first.locator(".state")).to_have_text("done", timeout=WAIT_MS)
    await expect(first.locator("tbody tr")).to_have_count(1)
    await expect(first.locator(".verdict")).to_have_text("healthy")
    demo.variant = "redesign"  # the search box's id changes: the skill no longer fits
    await page.get_by_role("link", name="Skills").click()
    await page.get_by_role("button", name="Validate all").click()
    await expect(first.locator(".state")).to_have_text("done", timeout=WAIT_MS)
    stale = first.locator("tbody tr").filter(has_text=name)
    await expect(stale.locator(".verdict")).to_have_text("stale")
    await expect(stale).to_contain_text("#search-box")
    shot = stale.locator("img.thumb")
    await expect(shot).to_be_visible()
    assert await shot.evaluate(SHOWN_WHOLE)
    assert list((console.workspace / "reports").glob("console-*.json"))
    await page.goto(f"{console.origin}/skills/{name}")  # its status history, newest first
    history = page.locator("#history tbody tr")
    await expect(history.first.locator(".verdict")).to_have_text("stale")
    await expect(history.first).to_contain_text("#search-box")
    await expect(history.nth(1).locator(".verdict")).to_have_text("healthy")
    await expect(page.locator("#health")).to_have_text("broken")  # its health, and why
    await expect(page.locator("#failures li").first).to_contain_text("validation broken")


async def test_stopping_the_server_stores_its_runs_as_interrupted(
    browser: Browser, llm_server: LLMTestServer, demo: DemoSite, tmp_path: Path
) -> None:
    with serving(tmp_path, llm_server) as served:
        async with visiting(browser, served) as page:
            await start_run(page, ASKING, f"{demo.url}/")
            await expect(page.locator("#question-text")).to_have_text(QUESTION, timeout=WAIT_MS)
            run_id = await run_id_of(page)
            served.process.send_signal(signal.SIGINT)  # Ctrl-C
            served.process.wait(timeout=60)
    run = stored_run(served, run_id)
    assert (run.status, run.error) == ("interrupted", "Interrupted by the user.")


# Protections: the token, the browser's session, same-origin POSTs and the form's CSRF token.


def request(
    console: Served, method: str, path: str, headers: dict[str, str] | None = None, body: str = ""
) -> http.client.HTTPResponse:
    """One request to the console, redirects not followed."""
    connection = http.client.HTTPConnection(urlsplit(console.origin).netloc, timeout=30)
    sent = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    connection.request(method, path, body=body or None, headers=sent)
    response = connection.getresponse()
    response.read()
    return response


def csrf_of(console: Served) -> str:
    bearer = {"Authorization": f"Bearer {console.token}"}
    connection = http.client.HTTPConnection(urlsplit(console.origin).netloc, timeout=30)
    connection.request("GET", "/", headers=bearer)
    html = connection.getresponse().read().decode()
    match = re.search(r'name="csrf" value="(\w+)"', html)
    assert match
    return match.group(1)


PAGES = [
    "/",
    "/live/0123456789abcdef",
    "/live/0123456789abcdef/events",
    "/static/live.js",
    "/runs",
    "/runs/20261130-000000-000000",
    "/runs/20261130-000000-000000/shots/1.jpg",
    "/runs/20261130-000000-000000/trace.zip",
    "/skills",
    "/skills/search_products",
    "/validations",
    "/validations/0123456789ab/shots/0",
]


@pytest.mark.parametrize("path", PAGES)
def test_no_page_answers_without_the_token(console: Served, path: str) -> None:
    assert request(console, "GET", path).status == 401
    assert request(console, "GET", f"{path}?token=wrong").status == 401
    wrong_session = {"X-Console-Session": "wrong"}
    assert request(console, "GET", path, wrong_session).status == 401
    token_as_cookie = {"Cookie": f"browser_agent_console={console.token}"}
    assert request(console, "GET", path, token_as_cookie).status == 401
    assert request(console, "POST", "/runs/new", body="command=x").status == 401
    bearer = {"Authorization": f"Bearer {console.token}"}
    assert request(console, "GET", "/", bearer).status == 200


async def test_the_token_leaves_the_url_and_the_browser_keeps_no_cookie(
    page: Page, console: Served
) -> None:
    assert await page.context.cookies() == []
    assert "token=" not in page.url
    await page.reload()  # the service worker still carries the session
    await expect(page.get_by_label("Command")).to_be_visible()


async def test_a_form_on_another_site_cannot_start_a_run(
    page: Page, console: Served, demo: DemoSite
) -> None:
    """A page of another origin (the shop, on another port of 127.0.0.1) posting a form to
    the console, in a browser that holds the console's session, is refused."""
    csrf = csrf_of(console)  # as if the form token had leaked
    await page.goto(f"{demo.url}/")
    await page.evaluate(
        """([action, csrf]) => {
            const form = document.createElement('form');
            form.method = 'post';
            form.action = action;
            for (const [name, value] of [['csrf', csrf], ['command', 'empty the cart']]) {
                const input = document.createElement('input');
                input.name = name;
                input.value = value;
                form.append(input);
            }
            document.body.append(form);
            form.submit();
        }""",
        [f"{console.origin}/runs/new", csrf],
    )
    await page.wait_for_url(f"{console.origin}/runs/new")
    await expect(page.locator("body")).to_have_text("Refused: a cross-site request.")


async def test_text_from_runs_is_shown_as_text(page: Page, console: Served, demo: DemoSite) -> None:
    command = '<img id="injected" src="/static/live.js" onerror="document.title=1"> and stop'
    await start_run(page, command, f"{demo.url}/")
    await expect(page.locator("h1")).to_have_text(command)
    await expect(page.locator("#status")).not_to_have_text("running", timeout=WAIT_MS)
    await page.locator("#stored a").click()
    await expect(page.locator("h1")).to_have_text(command)
    await page.get_by_role("link", name="Runs").click()
    await expect(page.locator("#runs")).to_contain_text(command)
    assert await page.locator("#injected").count() == 0


def test_pages_allow_no_asset_from_elsewhere(console: Served) -> None:
    bearer = {"Authorization": f"Bearer {console.token}"}
    policy = request(console, "GET", "/", bearer).getheader("content-security-policy") or ""
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


def test_a_host_beyond_loopback_needs_allow_remote(
    tmp_path: Path, llm_server: LLMTestServer
) -> None:
    process = start_console(tmp_path, llm_server, "--host", "0.0.0.0", "--port", "0")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--allow-remote" in err and len(err.strip().splitlines()) == 1
    assert out == ""
