"""A guarded step locates its element once: the primitive acts on the element the guard
(``find``) checked, and looks again whenever anything came between the two (another
locate, a new page), so a check never vouches for an element it did not see.

The pages are this suite's own (tests/pages), served on 127.0.0.1.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from browser_agent.browser import locate as locating
from browser_agent.browser.session import BrowserSession
from browser_agent.dom.library import run_on_element
from browser_agent.errors import ActionError
from browser_agent.skills.primitive import click, enter_text, get_dom, open_url
from browser_agent.skills.runtime import SkillStale, Target, expect, find
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)

NAME = Target(step=2, selector="#plain", role="textbox", name="Name")


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The selectors the primitives look up on the page (their own locate)."""
    seen: list[str] = []
    look = locating._by_selector

    async def counted(active: BrowserSession, selector: str, timeout: float) -> Locator:
        seen.append(selector)
        return await look(active, selector, timeout)

    monkeypatch.setattr(locating, "_by_selector", counted)
    return seen


async def test_the_primitive_acts_on_the_element_the_guard_found(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
    looks: list[str],
) -> None:
    await open_url(f"{pages}/stubborn.html")
    said = await enter_text(selector=await find(NAME), text="Ada")
    await expect(NAME, said, value="Ada")
    assert looks == []  # the guard's element, not a second look
    assert await page_session.page.locator("#plain").input_value() == "Ada"


async def test_another_locate_in_between_ends_the_vouch(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
    looks: list[str],
) -> None:
    await open_url(f"{pages}/stubborn.html")
    selector = await find(NAME)
    await click("#terms")
    await enter_text(selector=selector, text="Ada")
    assert looks == ["#terms", "#plain"]


async def test_a_new_page_in_between_is_looked_at_afresh(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
) -> None:
    await open_url(f"{pages}/stubborn.html")
    selector = await find(NAME)
    await open_url(f"{pages}/stubborn.html")  # a new document: the field is not that one
    await page_session.page.locator("#plain").evaluate("el => { el.style.display = 'none'; }")
    with pytest.raises(ActionError) as refused:
        await enter_text(selector=selector, text="Ada")
    assert refused.value.kind == "hidden"


async def test_an_element_operation_answers_for_exactly_one_element(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
) -> None:
    """The library's element operations (one round trip each) answer for the one element a
    locator matches; none or several are an error, never the first one's answer."""
    await open_url(f"{pages}/stubborn.html")
    page = page_session.page
    assert (await run_on_element(page.locator("#plain"), "identity"))[1:3] == ["textbox", "Name"]
    for selector in ("#nothing-here", "input"):
        with pytest.raises(PlaywrightError, match="exactly one"):
            await run_on_element(page.locator(selector), "identity")


VISIBILITY_CASES = """
<button id="plain">plain</button>
<button id="none" style="display:none">none</button>
<button id="hidden" style="visibility:hidden">hidden</button>
<div style="visibility:hidden"><button id="in-hidden">in hidden</button></div>
<button id="see-through" style="opacity:0">see-through</button>
<button id="empty" style="width:0;height:0;padding:0;border:0"></button>
<span id="contents-text" style="display:contents">text of a box-less span</span>
<span id="contents-empty" style="display:contents"></span>
<span id="contents-hidden" style="display:contents"><b style="display:none">x</b></span>
<details><summary>more</summary><button id="folded">folded</button></details>
<div style="content-visibility:hidden"><button id="skipped">skipped</button></div>
<button id="off-screen" style="position:absolute;left:-5000px">off screen</button>
"""


async def test_the_guard_sees_an_element_visible_exactly_when_playwright_does(
    page_session: BrowserSession,
) -> None:
    """The guard's one look at an element says visible as Playwright's visible=true does:
    no second round trip to ask Playwright is needed."""
    page = page_session.current_page()
    await page.set_content(VISIBILITY_CASES)
    ids = await page.eval_on_selector_all("[id]", "elements => elements.map(e => e.id)")
    assert len(ids) == 12
    seen = {}
    for element_id in ids:
        locator = page.locator(f"#{element_id}")
        inspected = await run_on_element(locator, "inspect")
        seen[element_id] = (inspected[-1], await locator.is_visible())
    assert {key: mine for key, (mine, _) in seen.items()} == {
        key: playwright for key, (_, playwright) in seen.items()
    }
    assert seen["plain"][0] and not seen["none"][0] and seen["contents-text"][0]


async def test_the_guard_refuses_a_matching_element_no_one_can_see(
    page_session: BrowserSession,
) -> None:
    """One element matches the recorded selector, role and name but is hidden: the guard
    says the step is stale instead of vouching for it."""
    page_session.settings = page_session.settings.with_overrides(action_timeout_ms=200)
    await page_session.current_page().set_content(
        '<button id="go" style="visibility:hidden">Go</button>'
    )
    with pytest.raises(SkillStale) as stale:
        await find(Target(step=1, selector="#go", role="button", name="Go"))
    assert "no visible element matches #go" in str(stale.value)


@pytest.mark.parametrize(
    ("near", "among", "chosen"),
    [("Say hello to the gamma team.", 1, 0), ("Fridays at noon.", 0, 1), ("", 1, 1)],
)
async def test_a_recorded_name_several_elements_share_is_the_recorded_one(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
    near: str,
    among: int,
    chosen: int,
) -> None:
    """A step recorded on one of two "Edit" links takes the one after its recorded text,
    else the one at its recorded place, and never stops at "several match"."""
    await open_url(f"{pages}/two-edits.html")
    edit = Target(
        step=1, selector='role=link[name="Edit"]', role="link", name="Edit", near=near, among=among
    )
    assert await find(edit) == f'role=link[name="Edit"] >> nth={chosen}'


# A menu made without script, as MediaWiki's Vector skin draws its "Personal tools": a
# see-through checkbox laid over its label, the menu shown while it is checked.
SEE_THROUGH_MENU = """
<style>
  #p-personal { position: relative; height: 6em }
  #p-personal-checkbox, #p-personal-label { position: absolute; top: 0; left: 0; margin: 0;
    width: 8em; height: 2em }
  #p-personal-checkbox { opacity: 0; z-index: 1 }
  #p-personal .menu-content { position: absolute; top: 2em; left: 0 }
  #p-personal .menu-content { display: none }
  #p-personal-checkbox:checked ~ .menu-content { display: block }
</style>
<div id="p-personal" title="More options">
  <input type="checkbox" id="p-personal-checkbox" role="button" aria-haspopup="true">
  <label id="p-personal-label" for="p-personal-checkbox"><span>Personal tools</span></label>
  <div class="menu-content"><a href="#logged-in">Log in</a></div>
</div>
<p><button id="lone" style="opacity:0">Go</button></p>
"""


async def test_a_see_through_control_over_its_label_is_clicked_and_one_over_nothing_is_not(
    page_session: BrowserSession,
) -> None:
    """The checkbox a person clicks through its label is listed and clicked (its menu
    opens); a see-through button over nothing of its own stays hidden."""
    page_session.settings = page_session.settings.with_overrides(action_timeout_ms=300)
    page = page_session.current_page()
    await page.set_content(SEE_THROUGH_MENU)
    listed = await get_dom()
    assert 'button "Personal tools" id=p-personal-checkbox' in listed
    assert '"Go"' not in listed
    said = await click("#p-personal-checkbox")
    assert said.startswith("Clicked")
    await click('role=link[name="Log in"]')
    assert page.url.endswith("#logged-in")
    with pytest.raises(ActionError) as refused:
        await click("#lone")
    assert refused.value.kind == "hidden"


async def test_enter_goes_where_the_focus_went_when_the_page_replaced_the_field(
    pages: str,  # noqa: F811
    page_session: BrowserSession,
) -> None:
    """The page swaps the search box for another as one types: Enter is pressed in the one
    that took its place and holds the text; a box that left with the focus is said."""
    page_session.settings = page_session.settings.with_overrides(action_timeout_ms=300)
    await open_url(f"{pages}/swapped-search.html")
    said = await enter_text("#q", "footer", press_enter=True)
    assert "Enter went where the focus went" in said
    await page_session.current_page().wait_for_url("**/swapped-search.html?q=footer")
    with pytest.raises(ActionError, match="Could not press Enter"):
        await enter_text("#lost", "footer", press_enter=True)
