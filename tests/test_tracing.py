"""Playwright traces of runs: kept as the trace setting says, readable as Playwright writes
them, and with no secret of the run in them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
import pytest_asyncio
from playwright.async_api import Browser

from browser_agent.browser.tracing import MASK
from browser_agent.demo_site import DemoSite
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.scripted import Script, mmid, search_and_sort
from tests.skill_workspaces import (
    ADD_TO_CART,
    clone_workspace,
    expecting_stale,
    harvest_commands,
    run_offline,
    workspace_settings,
)

SECRET = "Wr0ng pw&=?/é"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def cart_skill(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser, demo: DemoSite
) -> Settings:
    """A workspace where adding a product to the cart was harvested, once for the module."""
    settings = workspace_settings(tmp_path_factory.mktemp("cart") / "workspace")
    await harvest_commands([ADD_TO_CART], settings, browser, demo)
    return settings


def wrong_login(demo: DemoSite) -> Script:
    """Types the secret into the login form and sends it (the shop says no); the run then
    meets its step limit and fails."""
    return Script(
        [
            ("open_url", lambda _d: {"url": f"{demo.url}/login"}),
            ("get_dom", lambda _d: {"content_type": "input_fields"}),
            ("enter_text", lambda d: {"selector": mmid('textbox "Username"')(d), "text": "demo"}),
            ("enter_text", lambda d: {"selector": mmid('textbox "Password"')(d), "text": "{PW}"}),
            ("click", lambda _d: {"selector": "#login-form button[type=submit]"}),
            ("get_dom", lambda _d: {}),
        ]
    )


async def run(
    script: Script,
    settings: Settings,
    browser: Browser,
    mode: str,
    command: str = "log in as demo",
    **options: object,
) -> RunResult:
    return await run_command(
        command,
        FunctionClient(script),
        settings.with_overrides(trace=mode),
        browser=browser,
        **options,  # type: ignore[arg-type]
    )


def secret_forms(secret: str) -> list[bytes]:
    return [
        form.encode()
        for form in (secret, quote(secret, safe=""), quote_plus(secret), json.dumps(secret)[1:-1])
    ]


async def test_a_failed_run_keeps_a_trace_playwright_can_read_with_the_secret_masked(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    result = await run(
        wrong_login(demo), settings, browser, "on-failure", max_steps=5, secrets={"PW": SECRET}
    )
    assert result.status == "failed"
    assert result.trace_path == str(settings.logs_dir / f"{result.run_id}.trace.zip")
    with zipfile.ZipFile(result.trace_path) as trace:
        events = [json.loads(line) for line in trace.read("trace.trace").splitlines() if line]
        assert events[0]["type"] == "context-options"
        methods = {event.get("method") for event in events if event.get("type") == "before"}
        assert {"goto", "fill", "click"} <= methods
        network = trace.read("trace.network")
        assert b"/login" in network
        everything = [trace.read(entry) for entry in trace.infolist()]
    for data in everything:
        for form in secret_forms(SECRET):
            assert form not in data
    assert any(MASK in data for data in everything)  # the typed value, masked
    assert Path(result.trace_path).stat().st_mode & 0o077 == 0


async def test_a_succeeded_run_keeps_a_trace_only_when_always(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    shop = f"{demo.url}/"
    command = "search for trail and sort by price low to high"
    script = search_and_sort(shop, "trail", "Price: low to high")
    kept = await run(script, settings, browser, "on-failure", command, start_url=shop)
    assert (kept.status, kept.trace_path) == ("succeeded", None)
    assert not list(settings.logs_dir.glob("*.trace.zip"))
    script = search_and_sort(shop, "trail", "Price: low to high")
    always = await run(script, settings, browser, "always", command, start_url=shop)
    assert always.status == "succeeded"
    assert always.trace_path and zipfile.is_zipfile(always.trace_path)


async def test_no_trace_when_off(settings: Settings, browser: Browser, demo: DemoSite) -> None:
    result = await run(wrong_login(demo), settings, browser, "off", max_steps=5)
    assert (result.status, result.trace_path) == ("failed", None)
    assert not list(settings.logs_dir.glob("*.trace.zip"))


def traced_actions(trace_path: str) -> list[tuple[str, str]]:
    """Each action the trace recorded: its method and its selector or URL."""
    with zipfile.ZipFile(trace_path) as trace:
        events = [json.loads(line) for line in trace.read("trace.trace").splitlines() if line]
    return [
        (event["method"], str(event["params"].get("selector") or event["params"].get("url")))
        for event in events
        if event.get("type") == "before" and "params" in event
    ]


async def test_a_routed_run_is_traced_from_where_the_planner_takes_over(
    cart_skill: Settings, tmp_path: Path, browser: Browser, demo: DemoSite
) -> None:
    """Under on-failure the skill's replay is not recorded (the log step says why it did
    not do the task); the planner's actions after it are. Under always, both are."""
    settings = clone_workspace(cart_skill, tmp_path / "workspace")
    engine = open_store(settings)
    command = "add Unicorn Boots in size 42, quantity 2 to the cart"  # no such product
    actions = {}
    for mode in ("always", "on-failure"):
        missing = expecting_stale(settings).with_overrides(trace=mode)  # no such link
        result = await run_offline(command, "/", missing, engine, browser, demo)
        assert result.status == "failed" and result.trace_path, mode
        actions[mode] = traced_actions(result.trace_path)
        log = json.loads(Path(result.log_path).read_text())
        assert "does not apply to this command" in log[3]["content"]  # the skill's step
    skill_looked_for = [a for a in actions["always"] if "Unicorn Boots" in a[1]]
    assert skill_looked_for  # the skill looked for the product's link
    assert not [a for a in actions["on-failure"] if "Unicorn Boots" in a[1]]
    for mode in ("always", "on-failure"):  # the planner typed into the search box
        assert any(method == "fill" for method, _ in actions[mode]), mode


def step_groups(trace_path: str) -> list[str]:
    """The names of the trace's groups of actions, in order (Playwright's tracing.group)."""
    with zipfile.ZipFile(trace_path) as trace:
        events = [json.loads(line) for line in trace.read("trace.trace").splitlines() if line]
    return [
        str(event.get("title"))
        for event in events
        if event.get("type") == "before" and event.get("method") == "tracingGroup"
    ]


async def test_a_trace_groups_its_actions_by_the_steps_of_the_run_and_of_the_skill(
    cart_skill: Settings, tmp_path: Path, browser: Browser, demo: DemoSite
) -> None:
    """The planner's steps and a routed skill's steps each name a group of the trace's
    actions, as the run's log numbers them; the skill's groups say what each step does."""
    settings = clone_workspace(cart_skill, tmp_path / "workspace")
    engine = open_store(settings)
    command = "add Unicorn Boots in size 42, quantity 2 to the cart"  # the skill then the planner
    missing = expecting_stale(settings).with_overrides(trace="always")  # no such link
    result = await run_offline(command, "/", missing, engine, browser, demo)
    assert result.trace_path, result.answer
    groups = step_groups(result.trace_path)
    assert "Step 2: the link 'Unicorn Boots'" in groups  # the skill's, by the name asked
    assert any(g.startswith("Step ") and g.endswith(": enter_text") for g in groups), groups
