"""What a harvested step does on a page that is not quite the one it was recorded on:
same-named elements told apart by what was recorded, another role refused, and effects
checked on the element (a page that silently undoes a change stops the skill).

The pages are this suite's own (tests/pages), served on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.harvest.harvester import harvest
from browser_agent.planner.prompts import task_message
from browser_agent.settings import Settings
from browser_agent.skills.primitive import click, enter_text, get_dom, open_url, select_option
from browser_agent.skills.runtime import SkillNotApplicable, SkillStale, Target, expect
from browser_agent.skills.stored import load_skill
from browser_agent.store.db import open_store
from tests.test_harvest import tool_round

PAGES = Path(__file__).parent / "pages"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    """The folder tests/pages served on 127.0.0.1; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def record_billing_save(url: str, settings: Settings, browser: Browser) -> Path:
    """Do "press Save for the billing address" with the primitives and log it: the second
    of two buttons named Save, picked by its mmid as a model would."""
    command = "press Save for the billing address"
    messages: list[dict] = [{"role": "user", "content": task_message(command, url)}]
    async with browser_session(settings, browser):
        messages += tool_round("c1", "open_url", {"url": url}, await open_url(url))
        seen = await get_dom("all_fields")
        messages += tool_round("c2", "get_dom", {"content_type": "all_fields"}, seen)
        mmids = re.findall(r'^\[(\d+)\] button "Save"', seen, re.MULTILINE)
        assert len(mmids) == 2
        selector = f"[mmid='{mmids[1]}']"
        messages += tool_round("c3", "click", {"selector": selector}, await click(selector))
    messages += tool_round(
        "c4", "finish", {"answer": "Saved the billing address.", "success": True}, "Finished."
    )
    path = settings.logs_dir / "billing.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(messages), encoding="utf-8")
    meta = {"id": "billing", "command": command, "start_url": url, "status": "succeeded"}
    path.with_suffix(".meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return path


async def status_after(
    skill_function, url: str, settings: Settings, browser: Browser, **arguments: str
) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Run the skill from ``url``; its answer and the page's status line afterwards."""
    async with browser_session(settings, browser) as active:
        answer = await skill_function(start_url=url, **arguments)
        return answer, await active.page.locator("#status").inner_text()


async def test_same_named_buttons_are_told_apart_by_what_was_recorded(
    pages: str, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    log = await record_billing_save(f"{pages}/addresses.html", settings, browser)
    (made,) = await harvest([log], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    assert json.loads(made.skill.command_templates) == [
        "press {button_name} for the billing address"
    ]
    skill = load_skill(made.skill)

    answer, status = await status_after(skill, f"{pages}/addresses.html", settings, browser,
                                        button_name="Save")  # fmt: skip
    assert status == "billing saved"
    assert "2 visible buttons are named 'Save'; step 2 used the one after '4 Mill Lane'" in answer

    # the sections swapped places: the recorded text still says which one, not the order
    answer, status = await status_after(
        skill, f"{pages}/addresses.html?billing-first", settings, browser, button_name="save"
    )
    assert status == "billing saved", answer


async def test_a_name_on_an_element_of_another_role_is_refused(
    pages: str, settings: Settings, browser: Browser
) -> None:
    engine = open_store(settings)
    log = await record_billing_save(f"{pages}/addresses.html", settings, browser)
    (made,) = await harvest([log], settings, engine, browser=browser)
    assert made.skill is not None
    skill = load_skill(made.skill)
    async with browser_session(settings, browser) as active:
        with pytest.raises(SkillNotApplicable, match="no button named 'Delete'"):
            await skill(start_url=f"{pages}/addresses.html", button_name="Delete")
        assert await active.page.locator("#status").inner_text() == ""  # the link: untouched


def field(selector: str, role: str, name: str) -> Target:
    return Target(step=1, selector=selector, role=role, name=name)


async def test_effects_are_checked_on_the_element(pages: str, page_session: BrowserSession) -> None:
    await open_url(f"{pages}/stubborn.html")

    said = await enter_text("#plain", "Ada")
    await expect(field("#plain", "textbox", "Name"), said, value="Ada")  # it holds: passes

    said = await enter_text("#when", "12/24/2016")  # a date field holds 2016-12-24
    await expect(field("#when", "textbox", "When"), said, value="12/24/2016")

    said = await enter_text("#code", "A1")  # the page empties it: no error, no value
    with pytest.raises(SkillStale, match="should now hold 'A1'; it holds ''"):
        await expect(field("#code", "textbox", "Code"), said, value="A1")

    said = await click("#terms")
    with pytest.raises(SkillStale, match="should now be ticked"):
        await expect(field("#terms", "checkbox", "I agree"), said, checked=True)

    said = await select_option("#size", "42")
    with pytest.raises(SkillStale, match="'42' should now be chosen, but '40' is"):
        await expect(field("#size", "combobox", "Size"), said, selected="42")


async def test_a_popup_that_takes_the_focus_is_closed_and_the_text_typed_again(
    pages: str, page_session: BrowserSession
) -> None:
    await open_url(f"{pages}/popup.html")
    said = await enter_text("#username", "ada")
    page = page_session.page
    assert await page.locator("#username").input_value() == "ada"
    assert 'closed with <button id="popup-cancel">Cancel</button>' in said
    assert await page.title() == "Sign in"  # not the popup's OK, which leaves
    assert await page.locator("#cancel-form").is_visible()  # the form's own Cancel: untouched

    said = await enter_text("#nickname", "ace")  # refused, and no popup to close
    assert said.startswith("Typed 'ace' into <input id=\"nickname\">, but the field did not keep")


async def test_an_editor_that_refuses_text_put_in_at_once_is_typed_into_key_by_key(
    pages: str, page_session: BrowserSession
) -> None:
    await open_url(f"{pages}/typed-by-keys.html")
    said = await enter_text("#note", "hello there")
    assert said.startswith("Text 'hello there' entered"), said
    assert await page_session.page.locator("#note").inner_text() == "hello there"


async def test_a_field_named_by_its_label_that_keeps_nothing_is_said_so(
    pages: str, page_session: BrowserSession
) -> None:
    await open_url(f"{pages}/typed-by-keys.html")
    said = await enter_text("#code-label", "x9")  # the label's field is what is read
    assert "but the field did not keep it" in said, said


async def test_a_partly_covered_button_is_clicked_where_it_shows(
    pages: str, page_session: BrowserSession
) -> None:
    await open_url(f"{pages}/overlap.html")
    await click("#one")
    assert await page_session.page.title() == "ONE"
