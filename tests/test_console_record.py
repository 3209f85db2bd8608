"""Record in the web console: a real `serve` records in a Chromium it reaches over CDP (as
BROWSER_AGENT_BROWSER_ENDPOINT says; this machine has no display), Playwright plays the
person in that Chromium's tab and clicks Record and Stop in the console's page."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Playwright, async_playwright, expect

from browser_agent.browser.chromium import LAUNCH_ARGS, find_chromium
from browser_agent.demo_site import DemoSite
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.testing.openai_server import LLMTestServer
from tests.skill_workspaces import workspace_settings
from tests.test_console import (
    WAIT_MS,
    Served,
    csrf_of,
    llm_server,  # noqa: F401 (the model behind serve, a fixture)
    request,
    run_id_of,
    serving,
    stored_run,
    visiting,
)
from tests.test_console_session import session_of
from tests.test_record import files_holding, free_port, routed

PASSWORD = "secret123"  # the demo shop's password for demo


@dataclass
class Window:
    """The Chromium the console records in (the person's window) and its CDP endpoint."""

    endpoint: str
    playwright: Playwright


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def window() -> AsyncIterator[Window]:
    port = free_port()
    async with async_playwright() as playwright:
        executable = find_chromium(None, playwright.chromium.executable_path)
        launched = await playwright.chromium.launch(
            executable_path=executable, args=[*LAUNCH_ARGS, f"--remote-debugging-port={port}"]
        )
        yield Window(f"http://127.0.0.1:{port}", playwright)
        await launched.close()


@pytest.fixture(scope="module")
def recorder(
    window: Window,
    tmp_path_factory: pytest.TempPathFactory,
    llm_server: LLMTestServer,  # noqa: F811
) -> Iterator[Served]:
    """A console that records in the window's Chromium."""
    workspace = tmp_path_factory.mktemp("recorder")
    with serving(workspace, llm_server, BROWSER_AGENT_BROWSER_ENDPOINT=window.endpoint) as served:
        yield served


async def start_recording(console: Page, command: str, start_url: str) -> None:
    await console.get_by_label("Command").fill(command)
    await console.get_by_label("Start URL").fill(start_url)
    await console.get_by_role("button", name="Record").click()
    await console.wait_for_url("**/live/*")
    await expect(console.locator("#recording")).to_be_visible()


async def recorded_tab(window: Window, url: str) -> Page:
    """The tab the console opened at ``url``, as the person sees it."""
    person = await window.playwright.chromium.connect_over_cdp(window.endpoint)
    for _ in range(300):
        shown = [p for c in person.contexts for p in c.pages if p.url.startswith(url)]
        if shown:
            await shown[0].wait_for_load_state()
            return shown[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"the console opened no tab at {url}")


async def stop(console: Page, status: str) -> None:
    await console.get_by_role("button", name="Stop").click()
    await expect(console.locator("#status")).to_have_text(status, timeout=WAIT_MS)


async def test_a_recording_is_shown_live_saved_harvested_and_replayed_without_the_model(
    browser: Browser, recorder: Served, window: Window, demo: DemoSite
) -> None:
    command = "find trail shoes and sort by best seller"
    async with visiting(browser, recorder) as console:
        await start_recording(console, command, demo.url)
        tab = await recorded_tab(window, demo.url)
        await tab.fill("#search-box", "trail shoes")
        await tab.click("#search-submit")
        await tab.select_option("#sort", label="Best seller")  # the page submits it
        await tab.wait_for_url("**&sort=best_seller")
        steps = console.locator("li.step")
        await expect(steps).to_have_count(4)  # each action appears as it is recorded
        tools = await steps.evaluate_all("els => els.map(e => e.dataset.tool)")
        assert tools == ["open_url", "enter_text", "click", "select_option"]
        await expect(steps.nth(1)).to_contain_text("'trail shoes'")
        await stop(console, "saved")
        await expect(console.locator("#answer-text")).to_contain_text("verified by replay")
        skill = console.locator("#end a.skill")
        await expect(skill).to_have_count(1)
        run = stored_run(recorder, await run_id_of(console))
        assert (run.command, run.status, run.model) == (command, "succeeded", "demonstration")
        await skill.click()
        await expect(console.locator("#source")).to_contain_text("async def ")
    settings = workspace_settings(recorder.workspace)
    engine = open_store(settings)
    templates = [json.loads(s.command_templates) for s in current_skills(engine)]
    assert ["find {search_term} and sort by {sort_by}"] in templates
    replayed = await routed(
        "find road shoes and sort by price low to high", settings, browser, engine, demo.url
    )
    assert (replayed.status, replayed.llm_calls) == ("succeeded", 0), replayed.answer
    assert replayed.final_url == f"{demo.url}/search?q=road+shoes&sort=price_asc"


async def test_closing_the_recorded_tab_ends_the_recording_as_stop_does(
    browser: Browser, recorder: Served, window: Window, demo: DemoSite
) -> None:
    async with visiting(browser, recorder) as console:
        await start_recording(console, "open Trail Blazer 2", demo.url)
        tab = await recorded_tab(window, demo.url)
        await tab.get_by_role("link", name="Trail Blazer 2").first.click()
        await tab.wait_for_url("**/product/**")
        await expect(console.locator("li.step")).to_have_count(2)
        await tab.close()  # the person closes the tab instead of pressing Stop
        await expect(console.locator("#status")).to_have_text("saved", timeout=WAIT_MS)
        await expect(console.locator("#end a.skill")).to_have_count(1)  # harvested, as on Stop
        run = stored_run(recorder, await run_id_of(console))
        assert (run.command, run.status) == ("open Trail Blazer 2", "succeeded")


async def test_a_password_typed_is_shown_and_kept_only_as_its_placeholder(
    browser: Browser, recorder: Served, window: Window, demo: DemoSite
) -> None:
    async with visiting(browser, recorder) as console:
        await start_recording(console, f"log in as demo with password {PASSWORD}", demo.url)
        await expect(console.locator("h1")).to_have_text("log in as demo with password {PASSWORD}")
        tab = await recorded_tab(window, demo.url)
        await tab.goto(f"{demo.url}/login")
        await tab.fill("#username", "demo")
        await tab.fill("#password", PASSWORD)
        await tab.click("#login-button")
        await tab.wait_for_url("**/account")
        typed = console.locator("li.step[data-tool=enter_text]")
        await expect(typed).to_have_count(2)
        await expect(typed.nth(1)).to_contain_text("'{PASSWORD}'")
        assert PASSWORD not in await console.content()
        await stop(console, "saved")
        assert PASSWORD not in await console.content()
        await console.locator("#stored a").click()
        await expect(console.locator("li.step[data-tool=enter_text]")).to_have_count(2)
        assert PASSWORD not in await console.content()
    assert files_holding(recorder.workspace, PASSWORD.encode()) == []


async def test_a_recording_with_no_action_saves_nothing(
    browser: Browser, recorder: Served, demo: DemoSite
) -> None:
    command = "show nothing at all"
    async with visiting(browser, recorder) as console:
        await start_recording(console, command, demo.url)
        await expect(console.locator("li.step")).to_have_count(1)  # the start page opened
        await stop(console, "not saved")
        await expect(console.locator("#answer-text")).to_have_text(
            "Nothing was recorded: no click, typing or choice on a page."
        )
        await expect(console.locator("#stored")).to_be_empty()
    logs = recorder.workspace / "logs"
    assert not any(command in p.read_text() for p in logs.glob("*.meta.json"))


async def test_a_start_page_that_does_not_open_is_one_line(
    browser: Browser, recorder: Served
) -> None:
    async with visiting(browser, recorder) as console:
        await console.get_by_label("Command").fill("find shoes")
        await console.get_by_label("Start URL").fill("file:///etc/passwd")
        await console.get_by_role("button", name="Record").click()
        await expect(console.locator(".problem")).to_contain_text("file:")
        assert "/live/" not in console.url
        closed = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
        await start_recording(console, "find shoes", closed)
        await expect(console.locator("#status")).to_have_text("failed", timeout=WAIT_MS)
        said = await console.locator("#answer-text").inner_text()
        assert said.startswith(f"Could not open {closed}: ") and "\n" not in said


def test_a_record_post_without_the_form_token_or_from_elsewhere_is_refused(
    recorder: Served,
) -> None:
    session = {**session_of(recorder), "Origin": recorder.origin}
    body = f"csrf={csrf_of(recorder)}&command="  # an empty command: only the form again
    assert request(recorder, "POST", "/recordings/new", session, body).status == 400
    assert request(recorder, "POST", "/recordings/new", session, "command=x").status == 403
    evil = {**session, "Origin": "http://evil.example"}
    assert request(recorder, "POST", "/recordings/new", evil, body).status == 403
    assert request(recorder, "POST", "/recordings/new", body="command=x").status == 401
