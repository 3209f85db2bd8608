"""Feedback in the console, in a real Chromium against a real serve process on the demo
shop: a run reviewed action by action (one approved, one corrected, one rejected), the
decisions kept in the store, ``feedback export`` made from them, a secret given in the
start form that reaches no file, and what the runs cost."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from browser_agent.console.browse import find_runs
from browser_agent.demo_site import DemoSite
from browser_agent.llm.prices import cost_of_run, shown_cost
from browser_agent.llm.types import LLMReply
from browser_agent.store.connection import Store
from browser_agent.store.db import open_store
from browser_agent.store.decisions import decisions
from browser_agent.store.run_steps import steps_of
from browser_agent.testing.openai_server import LLMTestServer, start_test_llm_server
from tests.skill_workspaces import workspace_settings
from tests.test_console import (
    CLI,
    WAIT_MS,
    Served,
    call,
    environment,
    run_id_of,
    serving,
    stored_run,
    visiting,
)

COMMAND = "sign up for the deals mail as {EMAIL}"
SECRET = "kept-out-7731@example.com"
PRICE = (1.0, 2.0)  # dollars per 1M tokens of the test model
PRICES = json.dumps({"test-model": PRICE})


def signing_up(messages: list[dict], tools: list[dict]) -> LLMReply:
    """Open the start page, type the secret into the search box (the wrong field, for the
    person to correct), click Subscribe, read the page (which shows the address: the
    model's context holds the secret from here on), open the start page again, then finish
    with what the last answer said."""
    answers = [m.get("content") or "" for m in messages if m.get("role") == "tool"]
    start = re.search(r"starting at (\S+)\. Current", messages[1]["content"])
    assert start
    script = [
        ("open_url", {"url": start.group(1)}),
        ("enter_text", {"selector": "#search-box", "text": "{EMAIL}"}),
        ("click", {"selector": "#newsletter-submit"}),
        ("get_dom", {"content_type": "text_only"}),
        ("open_url", {"url": start.group(1)}),
    ]
    if len(answers) < len(script):
        return call(*script[len(answers)])
    refused = answers[-1].startswith("Not executed")
    return call("finish", {"answer": answers[-1][:300], "success": not refused})


@pytest.fixture(scope="module")
def llm_server() -> Iterator[LLMTestServer]:
    with start_test_llm_server(signing_up) as server:
        yield server


@pytest.fixture(scope="module")
def console(
    tmp_path_factory: pytest.TempPathFactory, llm_server: LLMTestServer
) -> Iterator[Served]:
    workspace = tmp_path_factory.mktemp("feedback")
    with serving(workspace, llm_server, BROWSER_AGENT_PRICES=PRICES) as served:
        yield served


@pytest_asyncio.fixture
async def page(browser: Browser, console: Served) -> AsyncIterator[Page]:
    async with visiting(browser, console) as opened:
        yield opened


def export(console: Served, llm: LLMTestServer, *args: str) -> subprocess.CompletedProcess:
    """``browser-agent feedback export ARGS`` on the console's workspace (whose environment
    holds no secret)."""
    return subprocess.run(
        [CLI, "feedback", "export", *args],
        capture_output=True,
        text=True,
        env=environment(console.workspace, llm),
        timeout=60,
    )


def texts_holding(folder: Path, value: str) -> list[str]:
    """Files under ``folder`` (and members of its zip files) whose bytes hold ``value``."""
    found = []
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as kept:
                found += [f"{path}:{n}" for n in kept.namelist() if value.encode() in kept.read(n)]
        elif value.encode() in path.read_bytes():
            found.append(str(path))
    return found


async def test_a_reviewed_run_is_approved_corrected_and_rejected_and_exported_without_its_secret(
    page: Page, console: Served, llm_server: LLMTestServer, demo: DemoSite, tmp_path: Path
) -> None:
    await page.get_by_label("Command").fill(COMMAND)
    await page.get_by_label("Start URL").fill(f"{demo.url}/")
    await page.get_by_label("Secret 1 name").fill("EMAIL")
    await page.get_by_label("Secret 1 value").fill(SECRET)
    await page.get_by_label("Review every action").check()
    await page.get_by_role("button", name="Run").click()
    await page.wait_for_url(re.compile(r"/live/\w+$"))
    action = page.locator("#approval-action")

    await expect(action).to_contain_text("open_url", timeout=WAIT_MS)  # not weighty: reviewed
    await expect(page.locator("#context")).to_contain_text(COMMAND)  # what the model got
    await page.get_by_label("Note").fill("the right start")
    await page.get_by_role("button", name="Approve").click()

    await expect(action).to_contain_text("enter_text", timeout=WAIT_MS)
    await expect(page.get_by_label("Arguments")).to_have_value(re.compile("#search-box"))
    await page.get_by_label("Arguments").fill("the newsletter box")  # no JSON: refused
    await page.get_by_role("button", name="Correct").click()
    await expect(page.locator("#approval-problem")).to_contain_text("not JSON")
    await expect(action).to_contain_text("enter_text")  # still waiting
    await page.get_by_label("Tool").select_option("enter_text")
    corrected = {"selector": "#newsletter-email", "text": "{EMAIL}"}
    await page.get_by_label("Arguments").fill(json.dumps(corrected))
    await page.get_by_label("Note").fill("the newsletter box, not the search")
    await page.get_by_role("button", name="Correct").click()

    await expect(action).to_contain_text("Subscribe", timeout=WAIT_MS)
    await page.get_by_role("button", name="Approve").click()
    await expect(action).to_contain_text("open_url", timeout=WAIT_MS)
    await expect(page.locator("#context")).to_contain_text("Deals will go to")
    await page.get_by_label("Note").fill("not today: stay on this page")
    await page.get_by_role("button", name="Reject").click()
    await expect(page.locator("#status")).to_have_text("failed", timeout=WAIT_MS)
    assert SECRET not in await page.content()
    run_id = await run_id_of(page)
    cost = shown_cost(cost_of_run(stored_run(console, run_id), {"test-model": PRICE}))
    assert cost.startswith("$0.0")
    await expect(page.locator("#cost")).to_have_text(cost)

    # the store holds each decision with its note and what it was made on
    settings = workspace_settings(console.workspace)
    engine = open_store(settings)
    kept = decisions(Store.of(engine), run_id=run_id)
    assert [(d.step, d.verdict, d.tool, d.note) for d in kept] == [
        (1, "approved", "open_url", "the right start"),
        (2, "corrected", "enter_text", "the newsletter box, not the search"),
        (3, "approved", "click", ""),
        (5, "rejected", "open_url", "not today: stay on this page"),
    ]
    assert json.loads(kept[1].arguments)["selector"] == "#search-box"
    assert (kept[1].corrected_tool, json.loads(kept[1].corrected_arguments)) == (
        "enter_text",
        corrected,
    )
    assert COMMAND in kept[0].context and "Subscribe" in kept[2].action
    assert "Deals will go to ********" in kept[3].context  # the page said it: masked
    from sqlmodel import Session

    with Session(engine) as db:
        typed = steps_of(db, run_id)[1]
    assert (typed.tool, json.loads(typed.arguments)) == ("enter_text", corrected)  # it ran
    assert "newsletter-email" in typed.response
    sent = llm_server.requests[-1]["messages"]  # the model read the correction, in its history
    assert any("The person changed the action" in (m.get("content") or "") for m in sent)
    proposed = [c["function"]["arguments"] for m in sent for c in m.get("tool_calls") or []]
    assert not any("#search-box" in arguments for arguments in proposed)

    # the console shows the decisions and the cost, per run and in total
    await page.locator("#stored a").click()
    await expect(page.locator("#decisions tbody tr")).to_have_count(4)
    await expect(page.locator("#decisions tr.corrected .note")).to_have_text(kept[1].note)
    await expect(page.locator("#cost")).to_have_text(cost)
    await page.get_by_role("link", name="Runs").click()
    row = page.locator("#runs tbody tr").filter(has_text=run_id)
    await expect(row.locator(".cost")).to_have_text(cost)
    every = [stored_run(console, r.id) for r in find_runs(open_store(settings), None, None)]
    total = sum(cost_of_run(r, {"test-model": PRICE}) or 0 for r in every)
    await expect(page.locator("#total-cost")).to_have_text(shown_cost(total))

    # the export: the corrected step and the rejection with its note, no secret anywhere
    out = tmp_path / "feedback.jsonl"
    done = export(console, llm_server, "--out", str(out), "--since", "1h", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["corrected"], summary["rejected"], summary["left_out"]) == (1, 1, 0)
    fixed, refused = (json.loads(line) for line in out.read_text().splitlines())
    assert [m["role"] for m in fixed["messages"][:2]] == ["system", "user"]
    answer = fixed["messages"][-1]
    assert answer["role"] == "assistant" and "weight" not in answer
    assert json.loads(answer["tool_calls"][0]["function"]["arguments"]) == corrected
    assert {t["function"]["name"] for t in fixed["tools"]} >= {"enter_text", "click"}
    assert all(m.get("weight") == 0 for m in fixed["messages"][:-1] if m["role"] == "assistant")
    told = refused["messages"][-2]
    assert told["role"] == "tool" and "not today" in told["content"]
    assert refused["messages"][-3]["weight"] == 0  # the rejected action is not taught
    assert refused["messages"][-1]["tool_calls"][0]["function"]["name"] == "finish"
    assert SECRET not in out.read_text()
    assert texts_holding(console.workspace / "logs", SECRET) == []
    assert [p for p in console.workspace.rglob("*.db*") if SECRET.encode() in p.read_bytes()] == []
    later = export(console, llm_server, "--since", "2999-01-01")
    assert (later.returncode, later.stdout) == (0, "")
    assert "0 examples" in later.stderr


async def test_the_start_form_says_which_secret_is_missing_and_never_shows_a_value(
    page: Page, console: Served, demo: DemoSite
) -> None:
    await page.get_by_label("Command").fill("log in as {SHOP_USER}")
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator(".problem")).to_contain_text("names {SHOP_USER}")
    await page.get_by_label("Secret 1 name").fill("not a name")
    await page.get_by_label("Secret 1 value").fill("never-shown-5512")
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator(".problem")).to_contain_text("Secret 1: a name is letters")
    assert "never-shown-5512" not in await page.content()


async def test_a_secret_the_command_gives_is_never_shown_on_the_run_page(
    page: Page, console: Served, demo: DemoSite
) -> None:
    await page.get_by_label("Command").fill("sign up for the deals mail with PIN 99-5517-x")
    await page.get_by_label("Start URL").fill(f"{demo.url}/")
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("h1")).to_have_text("sign up for the deals mail with PIN {PIN}")
    await expect(page.locator("#status")).not_to_have_text("running", timeout=WAIT_MS)
    assert "99-5517-x" not in await page.content()
    await page.get_by_role("link", name="New run").click()
    assert "99-5517-x" not in await page.content()


def test_run_review_asks_before_every_action_and_keeps_each_decision(
    tmp_path: Path, llm_server: LLMTestServer, demo: DemoSite
) -> None:
    done = subprocess.run(
        [CLI, "run", COMMAND, "--url", f"{demo.url}/", "--review", "--secret", f"EMAIL={SECRET}"],
        input="y\ny\ny\nn\nnot today\n",
        capture_output=True,
        text=True,
        env=environment(tmp_path, llm_server),
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("The agent wants to:") == 4  # get_dom only looks: not asked
    store = Store.of(open_store(workspace_settings(tmp_path)))
    kept = [(d.tool, d.verdict, d.note) for d in decisions(store)]
    assert kept == [
        ("open_url", "approved", ""),
        ("enter_text", "approved", ""),
        ("click", "approved", ""),
        ("open_url", "rejected", "not today"),
    ]


def test_feedback_export_refuses_a_since_it_cannot_read(
    console: Served, llm_server: LLMTestServer
) -> None:
    done = export(console, llm_server, "--since", "last tuesday")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("Error: --since 'last tuesday'") and done.stderr[-1] == "\n"
