"""Nothing out of reach under the size budget: get_dom's window follows the viewport (or
page=N), find_elements searches the whole page, widget items get mmids, links stay short."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings
from browser_agent.skills.primitive import (
    click,
    enter_text,
    find_elements,
    get_dom,
    open_url,
    scroll,
)
from browser_agent.store.db import open_store
from tests.scripted import Script, mmid, spelled_out
from tests.test_runtime_guards import pages  # noqa: F401 (the served tests/pages)

ROWS = 2_500  # /big?n=20000: 2,500 product rows, about 7,500 actionable elements
LAST = rf'link "[^"]* #{ROWS}"'


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    yield open_store(settings)


def observations(result: RunResult) -> int:
    """The page observations the run's log shows: get_dom and find_elements answers."""
    log = json.loads(Path(result.log_path).read_text(encoding="utf-8"))
    calls = [c for m in log for c in m.get("tool_calls") or []]
    return sum(1 for c in calls if c["function"]["name"] in ("get_dom", "find_elements"))


async def reach_last_row(
    script: Script, demo: DemoSite, settings: Settings, browser: Browser, engine: Engine
) -> RunResult:
    url = f"{demo.url}/big?n={ROWS * 8}"
    script.actions.insert(0, ("open_url", lambda _dom: {"url": url}))
    # the click on a row of a 7,500-element page waits for its navigation, which the
    # start-site guard checks first: room for a slow machine
    return await run_command(
        f"open the product of row {ROWS}",
        FunctionClient(script),
        settings.with_overrides(use_skills=False, action_timeout_ms=15_000),
        start_url=url,
        browser=browser,
        engine=engine,
    )


async def test_a_planner_reaches_the_bottom_of_a_long_page_by_scrolling(
    settings: Settings, browser: Browser, engine: Engine, demo: DemoSite
) -> None:
    script = Script(
        [
            ("scroll", lambda _dom: {"direction": "bottom"}),
            ("get_dom", lambda _dom: {"content_type": "input_fields"}),
            ("click", lambda dom: {"selector": mmid(LAST)(dom)}),
        ]
    )
    result = await reach_last_row(script, demo, settings, browser, engine)
    assert result.status == "succeeded", result.answer
    assert "/product/" in (result.final_url or "")
    assert observations(result) <= 2


async def test_a_planner_reaches_the_bottom_of_a_long_page_by_searching(
    settings: Settings, browser: Browser, engine: Engine, demo: DemoSite
) -> None:
    script = Script(
        [
            ("find_elements", lambda _dom: {"query": f"#{ROWS}"}),
            ("click", lambda dom: {"selector": mmid(LAST)(dom)}),
        ]
    )
    result = await reach_last_row(script, demo, settings, browser, engine)
    assert result.status == "succeeded", result.answer
    assert "/product/" in (result.final_url or "")
    assert observations(result) <= 2


async def test_the_window_follows_the_viewport_and_pages_and_mmids_stay(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/big?n={ROWS * 8}")
    first = await get_dom("input_fields")
    assert re.search(r"^Window 1 from the top: \d+ below \(get_dom page=2", first, re.M), first
    assert not re.search(LAST, first)
    top_mmid = re.search(r'^\[(\d+)\] link "[^"]* #1"', first, re.M).group(1)

    await scroll("bottom")
    bottom = await get_dom("input_fields")
    assert re.search(r"^Window from the viewport \(scrolled \d+ px\): \d+ actionable", bottom, re.M)
    last_mmid = re.search(rf"^\[(\d+)\] {LAST}", bottom, re.M).group(1)
    assert not re.search(r'^\[\d+\] link "[^"]* #1"', bottom, re.M)  # above the window

    second = await get_dom("input_fields", page=2)
    assert re.search(r"^Window 2 from the top: \d+ actionable elements above", second, re.M)
    assert not set(re.findall(r"^\[(\d+)\]", first, re.M)) & set(
        re.findall(r"^\[(\d+)\]", second, re.M)
    )
    found = await find_elements(f"#{ROWS}")
    assert re.search(rf"^\[{last_mmid}\] {LAST}", found, re.M), found  # same mmid
    again = await get_dom("input_fields", page=1)
    assert re.search(rf'^\[{top_mmid}\] link "[^"]* #1"', again, re.M)
    # an mmid of another window is still checked against what it named
    assert page_session.observed[last_mmid][1] == "link"

    past = await get_dom("input_fields", page=99)
    windows = int(re.search(r"There is no window 99: the page has (\d+)", past).group(1))
    end = await get_dom("input_fields", page=-1)  # the last window, whatever their count
    assert re.search(rf"^Window {windows} of {windows} from the top: \d+ actionable", end, re.M)
    assert re.search(rf"^\[{last_mmid}\] {LAST}", end, re.M), end


async def test_find_elements_matches_labels_and_nearby_text_and_caps_its_list(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/big?n={ROWS * 8}")
    found = await find_elements("quantity row 1234")
    lines = re.findall(r"^\[\d+\] .*$", found, re.M)
    assert lines[0].startswith("[") and 'spinbutton "Quantity for row 1234"' in lines[0]
    assert len(lines) == 20 and "the best 20 shown" in found
    assert found.index("<<<page content") < found.index(lines[0])
    email = await find_elements("you@example.com")  # placeholder
    assert re.search(r'^\[\d+\] textbox "Get deals by email"', email, re.M)
    nothing = await find_elements("zebra")
    assert 'No element of this page has every word of "zebra".' in nothing


async def test_find_elements_takes_an_element_kind_in_plain_words(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    for query in ("searchbox", "search box"):  # a small model names the kind, not the label
        found = await find_elements(query)
        lines = re.findall(r"^\[\d+\] .*$", found, re.M)
        assert lines and lines[0].split("] ", 1)[1].startswith('searchbox "Search products"')
    assert not re.search(r"^\[\d+\] (link|button) ", await find_elements("text box"), re.M)
    # no element has both words (a link "Trail" is not a search): only the search box is
    # listed, with the call that searches the site, since a small model clicks any match
    near = await find_elements("trail shoes")
    assert 'No element of this page has every word of "trail shoes"; 3 have some' in near
    (box,) = re.findall(r"^\[(\d+)\] (.*)$", near, re.M)
    assert box[1].startswith('searchbox "Search products"')
    call = {"selector": f"[mmid='{box[0]}']", "text": "trail shoes", "press_enter": True}
    assert near.split("\n")[1].endswith(json.dumps({"name": "enter_text", "arguments": call}))
    said = await enter_text(**call)
    assert said.startswith("Text 'trail shoes' entered") and "/search?q=trail+shoes" in said
    whole = await find_elements("search products")
    assert "No element" not in whole and "search box:" not in whole
    assert "search box:" in await find_elements("zebra")


async def test_a_near_miss_on_a_page_with_no_search_box_says_so(
    page_session: BrowserSession,
    pages: str,  # noqa: F811
) -> None:
    await open_url(f"{pages}/modal.html")
    near = await find_elements("cancel order")
    assert "None of them has every word of it" in near and "search box" not in near
    assert re.search(r'^\[\d+\] button "Cancel subscription"', near, re.M)


async def test_a_click_on_a_text_field_says_that_it_typed_nothing(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    said = await click("#search-box")
    assert said.startswith("Clicked <input") and "enter_text" in said
    assert "enter_text" not in await click("#nav-deals")  # a link: nothing to type


async def test_listbox_menu_tree_and_grid_items_get_mmids_and_click(
    page_session: BrowserSession,
    pages: str,  # noqa: F811
) -> None:
    await open_url(f"{pages}/listbox.html")
    dom = await get_dom("input_fields")
    for line in (
        'option "Banana"',
        'option "Green"',  # inside an open combobox's popup
        'menuitemcheckbox "Wrap lines" (unchecked)',
        'treeitem "Documents" (expanded)',
        'treeitem "Invoices"',  # a nested tree item
        'tab "Advanced"',
        'gridcell "Seat 1A"',
    ):
        assert re.search(rf"^\[\d+\] {re.escape(line)}", spelled_out(dom), re.M), (line, dom)
    assert 'gridcell "Aisle"' not in dom  # a plain cell is text, not a control
    await click(mmid('option "Banana"')(dom))
    assert "Picked Banana." in await get_dom("text_only")
    await click(mmid('treeitem "Invoices"')(dom))
    assert "Picked Invoices." in await get_dom("text_only")


async def test_links_are_short(page_session: BrowserSession, demo: DemoSite) -> None:
    long = "x" * 300
    await open_url(f"{demo.url}/help")
    await page_session.page.set_content(
        f'<a href="{demo.url}/search?q=trail&session={long}">Same site</a>'
        f'<a href="https://www.example.org/docs/{long}/page.html#part">Other site</a>'
        '<a href="/cart">Cart</a>'
        '<a href="/p/1?utm_source=mail&id=7&gclid=abc&utm_medium=x#top">Tracked</a>'
        '<a href="/p/2?fbclid=zz">Only tracked</a>'
    )
    found = "\n".join(  # find_elements shows every link's target
        [await find_elements(words) for words in ("site", "cart", "tracked")]
    )
    assert 'link "Tracked" href=/p/1?id=7#top\n' in found, found  # tracking identifies nothing
    assert 'link "Only tracked" href=/p/2\n' in found + "\n", found
    assert 'href="/search?q=trail&session=xxxxxxxxxxxxxxxx…"' in found, found
    other = json.loads(re.search(r'link "Other site" href=(\S+)', found).group(1))
    assert other.startswith("example.org/docs/xxx") and other.endswith("/page.html#part")
    assert len(other) == 80
    assert "href=/cart" in found


async def test_get_dom_shows_a_target_where_the_name_does_not_tell(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    here = page_session.page.url
    await page_session.page.set_content(
        '<a href="/cart">Cart</a>'  # a unique name says which link it is
        '<a href="/p/1">Details</a><a href="/p/2">Details</a>'  # the same name twice
        '<a href="https://example.org/x">Partner</a>'  # leaves the site
        f'<a href="{here}">Help</a>'  # this very page
        '<a href="#">Menu</a>'  # no address at all
        '<a href="#faq">FAQ</a>'  # a part of this page, named
    )
    dom = await get_dom("all_fields")
    assert re.search(r'link "Cart"\n', dom), dom
    assert 'link "Details" href=/p/1\n' in dom and 'link "Details" href=/p/2\n' in dom, dom
    assert 'link "Partner" href=example.org/x\n' in dom, dom
    assert 'link "Help" href=/help\n' in dom, dom
    assert 'link "Menu" href=#\n' in dom, dom
    assert re.search(r'link "FAQ"\n', dom), dom
