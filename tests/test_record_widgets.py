"""Teaching by showing on the widgets of real applications: rich-text editors, date and
time fields, file fields and drag and drop. A person (Playwright) does the task on a page
of tests/pages while the recorder writes a run; what a skill can do replays on fresh
values with no model, and what it cannot is named in the harvest report."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.async_api import Browser, Page
from sqlalchemy.engine import Engine

from browser_agent.harvest.harvester import harvest, plan_from
from browser_agent.record.save import save_recording
from browser_agent.record.teach import harvest_saved
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.test_record import demonstrate, routed, taught
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)


def query(url: str | None) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url or "").query)


async def publishes_a_fresh_post(
    settings: Settings, browser: Browser, engine: Engine, editor: str
) -> None:
    """A fresh publish command on ``editor`` runs through the taught skill with no model
    and publishes its own title and text."""
    run = await routed(
        'publish a post titled "Amber field" with the text "Wheat in the wind."',
        settings,
        browser,
        engine,
        editor,
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert query(run.final_url) == {"title": ["Amber field"], "body": ["Wheat in the wind."]}


@pytest.mark.parametrize("on_to_the_text", ["click", "Enter"])
async def test_typing_in_a_rich_text_editor_becomes_a_skill_that_types_fresh_text(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
    on_to_the_text: str,
) -> None:
    editor = f"{pages}/editor.html"

    async def person(page: Page) -> None:
        await page.goto(editor)
        await page.click(".title")
        await page.keyboard.type("Quiet harbour")
        if on_to_the_text == "click":
            await page.click(".body")
        else:  # the editor takes the focus on to the text box
            await page.keyboard.press("Enter")
        await page.keyboard.type("Boats at rest.")
        await page.click("#publish")
        await page.wait_for_url("**/published.html?*")

    engine = open_store(settings)
    command = 'publish a post titled "Quiet harbour" with the text "Boats at rest."'
    saved, result = await taught(browser, settings, engine, person, command)
    log = json.loads(Path(saved.log_path).read_text(encoding="utf-8"))
    calls = [c["function"] for m in log for c in m.get("tool_calls") or []]
    typed = [json.loads(c["arguments"]) for c in calls if c["name"] == "enter_text"]
    assert [t["text"] for t in typed] == ["Quiet harbour", "Boats at rest."]
    assert [t.get("press_enter", False) for t in typed] == [on_to_the_text == "Enter", False]
    assert result.skill is not None
    source = result.skill.source
    # found by what does not change as one types: the placeholder, the label
    assert "selector='h1[data-placeholder=\"Add title\"]'" in source
    assert "selector='div[aria-label=\"Post text\"]'" in source
    assert "Quiet harbour" not in source.split("async def")[0]  # the text typed is no identity
    assert json.loads(result.skill.command_templates) == [
        'publish a post titled "{title}" with the text "{post_text}"'
    ]
    await publishes_a_fresh_post(settings, browser, engine, editor)


async def test_a_date_and_a_time_set_in_their_fields_replay_with_other_values(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    booking = f"{pages}/booking.html"

    async def person(page: Page) -> None:
        await page.goto(booking)
        await page.fill("#day", "2026-03-14")  # as the picker sets it: the value at once
        await page.fill("#from", "09:30")
        await page.click("#book")
        await page.wait_for_url("**/booking.html?*")

    engine = open_store(settings)
    _saved, result = await taught(
        browser, settings, engine, person, "book the room on 2026-03-14 from 09:30"
    )
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == ["book the room on {day} from {from_}"]
    run = await routed("book the room on 2026-05-02 from 14:15", settings, browser, engine, booking)
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert query(run.final_url) == {"day": ["2026-05-02"], "from": ["14:15"]}


async def test_a_drag_and_drop_is_named_in_the_harvest_report(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{pages}/board.html")
        await page.drag_and_drop("#card-1", "#done")
        await page.locator("#done #card-1").wait_for()
        await page.click("#save")
        await page.wait_for_url("**/board.html?done=*")

    engine = open_store(settings)
    recording = await demonstrate(browser, person)
    assert [a.tool for a in recording.actions] == ["open_url", "drag_and_drop", "click"]
    assert recording.actions[1].response == (
        'Dragged <li id="card-1">Write the report</li> and dropped it onto <ul id="done">.'
    )
    saved = save_recording(recording, "move the report card to done", settings, engine)
    (result,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert result.skill is None
    assert "drag_and_drop" in (result.reason or "")
    assert "no primitive drags an element onto another" in (result.reason or "")


async def test_a_file_chosen_is_named_in_the_harvest_report_never_its_path(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    document = tmp_path / "private-report.pdf"
    document.write_bytes(b"%PDF-1.4")

    async def person(page: Page) -> None:
        await page.goto(f"{pages}/upload.html")
        await page.fill("#subject", "Quarterly figures")
        await page.set_input_files("#document", document)
        await page.click("#send")
        await page.wait_for_url("**/upload.html?*")

    engine = open_store(settings)
    recording = await demonstrate(browser, person)
    assert [a.tool for a in recording.actions] == [
        "open_url", "enter_text", "upload_file", "click"
    ]  # fmt: skip
    saved = save_recording(recording, "send the quarterly figures", settings, engine)
    assert "private-report" not in Path(saved.log_path).read_text(encoding="utf-8")
    plan = plan_from(Path(saved.log_path))
    assert not plan.complete
    assert plan.ended_because.startswith('upload_file (Chose 1 file in <input id="document"')
    assert "a skill does not choose files from the disk" in plan.ended_because


async def test_teaching_a_task_again_says_what_became_of_it_never_none(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    """The second demonstration gives the same steps: the summary says the skill stays as
    it was (its replay is not made again), not "not verified: None"."""

    async def person(page: Page) -> None:
        await page.goto(f"{pages}/booking.html")
        await page.fill("#day", "2026-03-14")
        await page.click("#book")
        await page.wait_for_url("**/booking.html?*")

    engine = open_store(settings)
    said = []
    for _ in range(2):
        saved = save_recording(
            await demonstrate(browser, person), "book the room on 2026-03-14", settings, engine
        )
        said.append((await harvest_saved(saved, settings, engine))[1])
    assert said[0].endswith("(new skill), verified by replay.")
    assert said[1].endswith("(unchanged), the same steps as before; the skill stays healthy.")
    assert all("None" not in line for line in said)


async def test_a_summary_names_the_step_a_skill_cannot_do(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{pages}/board.html")
        await page.click("#save")  # a step a skill can do, then one it cannot
        await page.wait_for_url("**/board.html?done=")
        await page.drag_and_drop("#card-2", "#done")
        await page.locator("#done #card-2").wait_for()

    engine = open_store(settings)
    saved = save_recording(
        await demonstrate(browser, person), "save the board and finish the call", settings, engine
    )
    _skill, said = await harvest_saved(saved, settings, engine)
    assert (
        "It does only part of the command and is not used for it: drag_and_drop (Dragged " in said
    )
    assert "no primitive drags an element onto another" in said


async def test_the_ok_of_an_in_page_modal_dialog_is_a_step_like_others(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    modal = f"{pages}/modal.html"

    async def person(page: Page) -> None:
        await page.goto(modal)
        await page.fill("#reason", "too expensive")
        await page.click("#cancel-sub")
        await page.click("#ok")
        await page.wait_for_url("**/modal.html?cancelled=*")

    engine = open_store(settings)
    command = 'cancel my subscription because "too expensive"'
    _saved, result = await taught(browser, settings, engine, person, command)
    run = await routed(
        'cancel my subscription because "moving abroad"', settings, browser, engine, modal
    )
    assert run.status == "succeeded" and run.llm_calls == 0, run.answer
    assert query(run.final_url) == {"cancelled": ["moving abroad"]}


async def test_an_autocomplete_suggestion_chosen_is_recorded_after_the_text_typed(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    cities = f"{pages}/cities.html"

    async def person(page: Page) -> None:
        await page.goto(cities)
        await page.click("#city")
        await page.keyboard.type("Osl")
        await page.click("text=Oslo, Norway")  # a suggestion the page drew (role=option)
        await page.click("#deliver")
        await page.wait_for_url("**/cities.html?city=*")

    recording = await demonstrate(browser, person)
    assert [(a.tool, a.response) for a in recording.actions[1:3]] == [
        ("enter_text", 'Text \'Osl\' entered in <input id="city" name="city" role="combobox">.'),
        ("click", 'Clicked <li role="option">Oslo, Norway</li>.'),
    ]
    engine = open_store(settings)
    saved = save_recording(recording, "deliver to Oslo, Norway", settings, engine)
    (result,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert result.verified, result.verify_error
    assert result.skill is not None
    assert json.loads(result.skill.command_templates) == ["deliver to {option_name}"]
    # the letters typed before choosing are no words of the command: they stay as typed
    plan = plan_from(Path(saved.log_path))
    assert plan.steps[1].arguments["text"] == "Osl"


async def test_a_next_page_link_is_a_step_like_others_or_its_refusal_is_named(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    async def person(page: Page) -> None:
        await page.goto(f"{pages}/invoices.html")
        await page.click("#next")
        await page.wait_for_url("**/invoices.html?page=2")

    engine = open_store(settings)
    said = []
    for command in ("show the next page of invoices", "show the third page of invoices"):
        recording = await demonstrate(browser, person)
        assert [(a.tool, a.navigated_to) for a in recording.actions][1] == (
            "click",
            f"{pages}/invoices.html?page=2",
        )
        saved = save_recording(recording, command, settings, engine)
        said.append((await harvest_saved(saved, settings, engine))[1])
    # the command names the link: a skill; it does not: the report says why there is none
    assert said[0].endswith("(new skill), verified by replay."), said[0]
    assert said[1] == (
        "Not harvested: no reusable actions (choosing the link 'Next page' was a choice "
        "among page content)"
    )


async def test_an_editor_block_is_found_by_how_it_looked_before_it_was_typed_into(
    settings: Settings,
    browser: Browser,
    pages: str,  # noqa: F811
) -> None:
    """Enter in the title makes a paragraph block whose id is new each time and whose
    label changes once it holds text: the skill looks for the block as a replay meets
    it, empty, not as the demonstration left it. "Publish" opens a panel with another
    "Publish": each is found as the toggle it is or is not (the person closes the panel
    once and opens it again, so the toggle is also clicked beside its namesake)."""
    editor = f"{pages}/editor-blocks.html"

    async def person(page: Page) -> None:
        await page.goto(editor)
        await page.click(".title")
        await page.keyboard.type("Quiet harbour")
        await page.keyboard.press("Enter")
        await page.keyboard.type("Boats at rest.")
        for _ in range(3):  # open, close, open
            await page.click(".toggle")
        await page.click(".go")
        await page.wait_for_url("**/published.html?*")

    engine = open_store(settings)
    command = 'publish a post titled "Quiet harbour" with the text "Boats at rest."'
    _saved, result = await taught(browser, settings, engine, person, command)
    assert result.skill is not None, result
    assert result.skill.status == "healthy", result.skill.status
    assert "Empty block; start writing" in result.skill.source
    assert "button:not([aria-expanded])" in result.skill.source
    assert "[expanded=true]" in result.skill.source  # the toggle clicked to close the panel
    await publishes_a_fresh_post(settings, browser, engine, editor)
