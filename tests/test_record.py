"""Teaching by showing: Playwright plays a person on the demo shop while the recorder
writes a run; the run harvests into a skill that replays on other values with no model."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright
from sqlalchemy import Engine

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.demo_site import DemoSite
from browser_agent.dom.library import run_on_page
from browser_agent.harvest.harvester import HarvestResult, harvest
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.record.save import SavedRecording, save_recording
from browser_agent.record.session import Recording, record_session
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.test_demo_site import ctrl_c_as_on_a_terminal

Person = Callable[[Page], Awaitable[None]]


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although the skill should have done the work")


@asynccontextmanager
async def fresh_page(browser: Browser) -> AsyncIterator[tuple[BrowserContext, Page]]:
    context = await browser.new_context()
    try:
        yield context, await context.new_page()
    finally:
        await context.close()


async def demonstrate(
    browser: Browser, person: Person, *, secrets: dict[str, str] | None = None
) -> Recording:
    """Record what ``person`` does in a fresh context, until they are done."""
    async with (
        fresh_page(browser) as (context, page),
        record_session(context, secrets) as recording,
    ):
        await person(page)
        await page.wait_for_load_state()
    return recording


async def taught(
    browser: Browser, settings: Settings, engine: Engine, person: Person, command: str
) -> tuple[SavedRecording, HarvestResult]:
    """Record, save as a run of ``command``, harvest and verify."""
    recording = await demonstrate(browser, person)
    saved = save_recording(recording, command, settings, engine)
    (result,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert result.error is None and result.skill is not None, result.error
    assert result.verified, result.verify_error
    return saved, result


async def routed(
    command: str, settings: Settings, browser: Browser, engine: Engine, start_url: str
) -> RunResult:
    """``command`` carried out with a model that must not be asked."""
    return await run_command(
        command,
        FunctionClient(no_llm),
        settings,
        start_url=start_url,
        browser=browser,
        engine=engine,
    )


async def test_search_and_sort_shown_once_then_done_without_the_model(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    async def person(page: Page) -> None:
        await page.goto(demo.url)
        await page.fill("#search-box", "trail shoes")
        await page.click("#search-submit")
        await page.select_option("#sort", label="Best seller")  # the page submits it
        await page.wait_for_url("**&sort=best_seller")

    engine = open_store(settings)
    saved, result = await taught(
        browser, settings, engine, person, "find trail shoes and sort by best seller"
    )
    log = json.loads(Path(saved.log_path).read_text(encoding="utf-8"))
    tools = [c["function"]["name"] for m in log for c in m.get("tool_calls") or []]
    assert tools == [
        "open_url", "get_dom", "enter_text", "get_dom", "click", "get_dom", "select_option",
        "finish",
    ]  # fmt: skip
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == [
        "find {search_term} and sort by {sort_by}"
    ]
    run = await routed(
        "find road shoes and sort by price low to high", settings, browser, engine, demo.url
    )
    assert run.status == "succeeded", run.answer
    assert run.llm_calls == 0
    assert run.final_url == f"{demo.url}/search?q=road+shoes&sort=price_asc"


async def test_add_to_cart_with_size_and_quantity(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    product = f"{demo.url}/product/road-glide-5"

    async def person(page: Page) -> None:
        await page.goto(product)
        await page.select_option("#size", "44")
        await page.fill("#quantity", "2")
        await page.click("#add-to-cart")
        await page.wait_for_url("**/cart")

    engine = open_store(settings)
    _saved, result = await taught(
        browser, settings, engine, person, "add it in size 44, quantity 2 to the cart"
    )
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == [
        "add it in size {size}, quantity {quantity} to the cart"
    ]
    run = await routed(
        "add it in size 40, quantity 3 to the cart", settings, browser, engine, product
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert run.final_url == f"{demo.url}/cart"
    assert demo.submissions[-1] == {
        "form": "cart",
        "fields": {"slug": "road-glide-5", "size": "40", "quantity": "3"},
    }


async def test_a_form_inside_an_iframe(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{demo.url}/help")
        frame = page.frame_locator("#contact-frame")
        await frame.locator("#contact-name").fill("Ada Lovelace")
        await frame.locator("#message").fill("Where is my order?")
        await frame.locator("#send").click()
        await frame.locator("#contact-status").wait_for()

    engine = open_store(settings)
    _saved, result = await taught(
        browser,
        settings,
        engine,
        person,
        'send the message "Where is my order?" as Ada Lovelace through the contact form',
    )
    assert result.skill is not None
    run = await routed(
        'send the message "Do you ship to Oslo?" as Grace Hopper through the contact form',
        settings,
        browser,
        engine,
        f"{demo.url}/help",
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert demo.submissions[-1] == {
        "form": "contact",
        "fields": {"name": "Grace Hopper", "message": "Do you ship to Oslo?"},
    }


def files_holding(root: Path, secret: bytes) -> list[Path]:
    """Every file under ``root`` whose bytes hold ``secret`` (the store and its WAL too)."""
    return [p for p in root.rglob("*") if p.is_file() and secret in p.read_bytes()]


@pytest.mark.parametrize(
    ("command", "kept", "template"),
    [
        (
            "log in as demo with password secret123",
            "log in as demo with password {PASSWORD}",
            "log in as {username} with password {password}",
        ),
        # the command does not say it: the placeholder stays in the skill, filled at run time
        ("log in as demo", "log in as demo", "log in as {username}"),
    ],
)
async def test_a_password_typed_is_a_placeholder_and_nowhere_on_disk(
    settings: Settings,
    browser: Browser,
    demo: DemoSite,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    kept: str,
    template: str,
) -> None:
    monkeypatch.setenv("BROWSER_AGENT_SECRET_PASSWORD", "secret123")  # for the replays

    async def person(page: Page) -> None:
        await page.goto(f"{demo.url}/login")
        await page.fill("#username", "demo")
        await page.fill("#password", "secret123")
        await page.click("#login-button")
        await page.wait_for_url("**/account")

    engine = open_store(settings)
    saved = save_recording(await demonstrate(browser, person), command, settings, engine)
    assert files_holding(settings.workspace, b"secret123") == []
    assert saved.command == kept
    log = Path(saved.log_path).read_text(encoding="utf-8")
    assert '\\"text\\": \\"{PASSWORD}\\"' in log
    (result,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert result.verified, result.verify_error
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == [template]
    run = await routed(command, settings, browser, engine, f"{demo.url}/login")
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert run.final_url == f"{demo.url}/account"
    engine.dispose()
    assert files_holding(settings.workspace, b"secret123") == []


async def test_a_confirm_dialog_is_answered_as_the_person_did(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    product = f"{demo.url}/product/road-glide-5"

    async def person(page: Page) -> None:
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        await page.goto(product)
        await page.click("#add-to-cart")
        await page.wait_for_url("**/cart")
        await page.click("#empty-cart")
        await page.locator("#cart-empty").wait_for()

    engine = open_store(settings)
    saved, result = await taught(
        browser, settings, engine, person, "add it to the cart, then empty the cart"
    )
    log = Path(saved.log_path).read_text(encoding="utf-8")
    assert "A confirm dialog said 'Empty your cart?'; it was accepted" in log
    assert result.skill is not None
    assert "answering_dialogs(accept=True)" in result.skill.source
    before = len(demo.submissions)
    run = await routed(
        "add it to the cart, then empty the cart", settings, browser, engine, product
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert [s["form"] for s in demo.submissions[before:]] == ["cart", "empty cart"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("ending", ["ctrl-c", "closing the tab"])
async def test_the_record_command_records_until_the_end_and_harvests(
    settings: Settings, demo: DemoSite, ending: str
) -> None:
    """``browser-agent record`` on a browser it connects to (the person's window); the
    person searches, then presses Ctrl-C or closes the tab; the run is stored and
    harvested at once."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    async with async_playwright() as playwright:
        executable = find_chromium(None, playwright.chromium.executable_path)
        launched = await playwright.chromium.launch(
            executable_path=executable, args=[*LAUNCH_ARGS, f"--remote-debugging-port={port}"]
        )
        env = {
            **os.environ,
            "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
            "BROWSER_AGENT_BROWSER_ENDPOINT": endpoint,
        }
        process = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "browser-agent"),
            "record",
            "--url",
            demo.url,
            "--command",
            "find trail shoes",
            "--harvest",
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=ctrl_c_as_on_a_terminal,
        )
        person = await playwright.chromium.connect_over_cdp(endpoint)
        page = None
        while page is None:  # the window the command opened, once it shows the shop
            if process.returncode is not None:  # it ended before opening one
                out, err = await process.communicate()
                raise AssertionError(f"record ended early:\n{out.decode()}{err.decode()}")
            await asyncio.sleep(0.1)
            shown = [p for c in person.contexts for p in c.pages if p.url.startswith(demo.url)]
            page = shown[0] if shown else None
        await page.locator("#search-box").wait_for()
        await page.fill("#search-box", "trail shoes")
        await page.press("#search-box", "Enter")
        await page.wait_for_url("**/search?q=trail+shoes")
        if ending == "ctrl-c":
            process.send_signal(signal.SIGINT)
        else:
            await page.close()
        out, err = await process.communicate()
        await person.close()
        await launched.close()
    said = out.decode()
    assert process.returncode == 0, err.decode()
    assert "Command template: find {search_term}" in said
    assert "verified by replay" in said, said
    run = json.loads(next(settings.logs_dir.glob("*.meta.json")).read_text(encoding="utf-8"))
    assert (run["command"], run["status"], run["llm_calls"]) == ("find trail shoes", "succeeded", 0)


def test_record_without_a_display_says_so_in_one_line(settings: Settings) -> None:
    env = {**os.environ, "BROWSER_AGENT_WORKSPACE": str(settings.workspace), "DISPLAY": ""}
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("BROWSER_AGENT_BROWSER_ENDPOINT", None)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), "record", "--command", "x"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("Error: Recording opens a browser window and there is no display")
    assert len(done.stderr.strip().splitlines()) == 1


async def test_a_new_tab_is_what_the_click_that_opened_it_did(
    browser: Browser, demo: DemoSite
) -> None:
    async def person(page: Page) -> None:
        await page.context.route(
            f"{demo.url}/links",
            lambda route: route.fulfill(
                content_type="text/html",
                body='<a id="tab" href="/product/road-glide-5" target="_blank">Road Glide 5</a>',
            ),
        )
        await page.goto(f"{demo.url}/links")
        async with page.context.expect_page() as opened:
            await page.click("#tab")
        tab = await opened.value
        await tab.wait_for_load_state()
        await tab.select_option("#size", "44")
        await tab.click("#add-to-cart")
        await tab.wait_for_url("**/cart")

    recording = await demonstrate(browser, person)
    done = [(a.tool, a.navigated_to, a.notes) for a in recording.actions]
    assert done == [
        ("open_url", None, []),
        (
            "click",
            f"{demo.url}/product/road-glide-5",
            ["A new tab opened and is now the current page."],
        ),
        ("select_option", None, []),
        ("click", f"{demo.url}/cart", []),
    ]


async def test_a_page_calling_the_recorder_itself_is_not_taken_for_the_person(
    browser: Browser, demo: DemoSite
) -> None:
    async def person(page: Page) -> None:
        await page.goto(demo.url)
        forged = {"kind": "key", "keys": "Escape", "token": "guess"}
        await page.evaluate(
            "(report) => { window.__browserAgentRecord(JSON.stringify(report));"
            " delete report.token; window.__browserAgentRecord(JSON.stringify(report)); }",
            forged,
        )
        await page.keyboard.press("Escape")  # the person's own key

    recording = await demonstrate(browser, person)
    assert [(a.tool, a.arguments) for a in recording.actions] == [
        ("open_url", {"url": f"{demo.url}/"}),
        ("press_key_combination", {"keys": "Escape"}),
    ]


def test_record_with_a_browser_that_is_not_there_says_so_in_one_line(settings: Settings) -> None:
    env = {
        **os.environ,
        "BROWSER_AGENT_WORKSPACE": str(settings.workspace),
        "BROWSER_AGENT_BROWSER_ENDPOINT": "ws://person:hunter2@127.0.0.1:9/",  # nobody there
    }
    done = subprocess.run(
        [str(Path(sys.executable).parent / "browser-agent"), "record", "--command", "x"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("Error: Could not start the browser at ws://person:***@")
    assert len(done.stderr.strip().splitlines()) == 1 and "hunter2" not in done.stderr


async def test_a_new_tab_told_of_before_the_click_that_opened_it_is_still_the_clicks(
    browser: Browser, demo: DemoSite
) -> None:
    """The browser may tell of a new tab before the page reports the click that opened it
    (a busy machine): the tab's first page is still what that click did."""
    async with fresh_page(browser) as (context, page):
        recording = Recording()
        await page.goto(demo.url)
        await recording.attach(page)
        dom = await run_on_page(page, "observe", contentType="all_fields", budget=4000, window=0)
        link = page.locator("a[mmid]").first
        mmid, tag = await link.get_attribute("mmid"), await link.evaluate("e => e.outerHTML")
        tab = await context.new_page()
        await recording.attach(tab, new_tab=True)  # the tab is told of first
        click = {"token": recording.token, "kind": "click", "dom": dom, "url": demo.url}
        recording.on_event(json.dumps({**click, "chain": [[mmid, tag[:80]]]}))  # the click
        await tab.goto(f"{demo.url}/product/road-glide-5")
        await asyncio.sleep(0.5)  # the navigation is taken as the page reports it
        await recording.detach()
    done = [(a.tool, a.navigated_to) for a in recording.actions]
    assert done == [("click", f"{demo.url}/product/road-glide-5")], done
