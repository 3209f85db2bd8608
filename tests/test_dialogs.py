"""JavaScript dialogs on a real page: an alert is accepted, a confirm or prompt dismissed
unless the command or the settings say to accept, each reported in the answer of the
action that raised it; a harvested skill answers a dialog as its recorded run did."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.skills.primitive import click, enter_text, open_url
from browser_agent.store.db import open_store
from browser_agent.store.skill_use import current_skills
from browser_agent.words.confirms import command_accepts_dialogs
from tests.scripted import Script, mmid
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)

ASKED = "A confirm dialog said 'Delete this draft for good?'"


def delete_draft(url: str) -> Script:
    """A model that opens the draft page and presses Delete draft."""
    return Script(
        [
            ("open_url", lambda _dom: {"url": url}),
            ("get_dom", lambda _dom: {"content_type": "all_fields"}),
            ("click", lambda dom: {"selector": mmid('button "Delete draft"')(dom)}),
        ],
        answer="Pressed Delete draft.",
    )


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


def tool_answers(result: RunResult) -> list[str]:
    log = json.loads(Path(result.log_path).read_text(encoding="utf-8"))
    return [m["content"] for m in log if m.get("role") == "tool"]


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    yield open_store(settings)


async def test_confirm_is_dismissed_by_default_and_reported(
    page_session: BrowserSession,
    pages: str,  # noqa: F811
) -> None:
    await open_url(f"{pages}/draft.html")
    said = await click("#delete")
    assert f"{ASKED}; it was dismissed" in said, said
    assert page_session.page.url == f"{pages}/draft-kept.html"


async def test_prompt_is_dismissed_and_alert_accepted(
    page_session: BrowserSession,
    pages: str,  # noqa: F811
) -> None:
    await open_url(f"{pages}/draft.html")
    said = await click("#rename")
    assert "A prompt dialog said 'New name?'; it was dismissed" in said, said
    assert await page_session.page.locator("#not-renamed").count() == 1
    said = await click("#save")
    assert "An alert dialog said 'Draft saved.'; it was accepted" in said, said
    assert await page_session.page.locator("#saved").count() == 1


async def test_the_setting_accepts_confirm_and_prompt(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    async with browser_session(settings.with_overrides(accept_dialogs=True), browser) as active:
        await open_url(f"{pages}/draft.html")
        said = await click("#rename")
        assert "A prompt dialog said 'New name?'; it was accepted" in said, said
        said = await click("#delete")
        assert f"{ASKED}; it was accepted" in said, said
        assert active.page.url == f"{pages}/draft-deleted.html"


@pytest.mark.parametrize(
    ("accept", "choice", "end"),
    [(False, "dismissed", "unsaved.html"), (True, "accepted", "draft-kept.html")],
)
async def test_leaving_a_page_with_unsaved_changes_is_dismissed_unless_accepted(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
    accept: bool,
    choice: str,
    end: str,
) -> None:
    async with browser_session(settings.with_overrides(accept_dialogs=accept), browser) as active:
        await open_url(f"{pages}/unsaved.html")
        await enter_text("#note", "not saved yet")
        said = await click("#leave")
        assert f"A beforeunload dialog said ''; it was {choice}" in said, said
        assert active.page.url == f"{pages}/{end}"


def test_what_commands_accept_dialogs() -> None:
    for command in (
        "delete the draft and confirm",
        "Delete the draft, then accept the dialog",
        "press Delete and click OK",
        "remove it (confirmed)",
    ):
        assert command_accepts_dialogs(command), command
    for command in (
        "delete the draft",
        "accept the cookies and open the cart",
        "delete the draft but do not confirm",
        "never confirm anything; delete the draft",
        "look at the bookings",
    ):
        assert not command_accepts_dialogs(command), command


@pytest.mark.parametrize(
    ("command", "choice", "end", "status"),
    [
        # the draft was kept: the page says so, and a removal it did not do is no success
        ("delete the draft", "dismissed", "draft-kept.html", "unverified"),
        ("delete the draft and confirm", "accepted", "draft-deleted.html", "succeeded"),
    ],
)
async def test_the_planner_hears_what_became_of_the_dialog(
    settings: Settings,
    browser: Browser,
    engine: Engine,
    pages: str,  # noqa: F811
    command: str,
    choice: str,
    end: str,
    status: str,
) -> None:
    url = f"{pages}/draft.html"
    result = await run_command(
        command,
        FunctionClient(delete_draft(url)),
        settings.with_overrides(use_skills=False),
        start_url=url,
        browser=browser,
        engine=engine,
    )
    assert result.status == status, result.answer
    assert result.final_url == f"{pages}/{end}"
    assert any(f"{ASKED}; it was {choice}" in answer for answer in tool_answers(result))


@pytest.mark.parametrize(
    ("recorded_accepting", "end", "command"),
    [
        (True, "draft-deleted.html", "delete the draft"),
        (False, "draft-kept.html", "keep the draft"),
    ],
)
async def test_a_harvested_skill_answers_the_dialog_as_its_run_did(
    settings: Settings,
    browser: Browser,
    engine: Engine,
    pages: str,  # noqa: F811
    recorded_accepting: bool,
    end: str,
    command: str,
) -> None:
    """Recorded with the setting one way, replayed with it the other way: the skill's own
    recorded choice decides, with no model call."""
    url = f"{pages}/draft.html"
    first = await run_command(
        command,
        FunctionClient(delete_draft(url)),
        settings.with_overrides(accept_dialogs=recorded_accepting),
        start_url=url,
        browser=browser,
        engine=engine,
    )
    assert first.final_url == f"{pages}/{end}"
    (harvested,) = await harvest([Path(first.log_path)], settings, engine, browser=browser)
    assert harvested.error is None and harvested.verified, harvested.verify_error
    (skill,) = current_skills(engine, "healthy")
    assert skill.expected_end == f"/{end}"
    assert f"answering_dialogs(accept={recorded_accepting})" in skill.source

    routed = await run_command(
        command,
        FunctionClient(no_llm),
        settings.with_overrides(accept_dialogs=not recorded_accepting),
        start_url=url,
        browser=browser,
        engine=engine,
    )
    assert routed.status == "succeeded", routed.answer
    assert routed.llm_calls == 0
    assert routed.final_url == f"{pages}/{end}"
