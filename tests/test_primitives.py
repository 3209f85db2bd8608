"""Every primitive on the demo site, in real Chromium: what it does, what it says, its errors."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from urllib.parse import unquote

import pytest

from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.dom.library import run_on_page
from browser_agent.dom.page_content import PAGE_END, PAGE_START
from browser_agent.errors import ActionError
from browser_agent.skills.primitive import (
    PRIMITIVES,
    bulk_enter_text,
    click,
    enter_text,
    enter_text_and_click,
    extract_text,
    get_dom,
    get_url,
    go_back,
    hover,
    open_url,
    press_key_combination,
    scroll,
    select_option,
)
from browser_agent.tools import tool_schema


def mmid_for(dom: str, pattern: str) -> str:
    """The selector of the first get_dom line matching ``pattern``."""
    match = re.search(rf"^\[(\d+)\] {pattern}", dom, flags=re.MULTILINE)
    assert match, f"no line matches {pattern!r} in:\n{dom}"
    return f"[mmid='{match.group(1)}']"


async def cart_cookie(active: BrowserSession) -> str:
    cookies = await active.context.cookies()
    return unquote(next((c["value"] for c in cookies if c["name"] == "cart"), ""))


def test_every_primitive_has_a_schema_from_its_signature() -> None:
    for name, fn in PRIMITIVES.items():
        schema = tool_schema(fn)["function"]
        assert schema["name"] == name
        assert schema["description"]
        for prop in schema["parameters"]["properties"].values():
            assert prop.get("description"), f"{name} has an undescribed parameter"
    enter = tool_schema(enter_text)["function"]["parameters"]
    assert enter["required"] == ["selector", "text"]
    assert enter["properties"]["press_enter"] == {
        "type": "boolean",
        "description": "Press Enter afterwards, e.g. to submit a search.",
        "default": False,
    }


async def test_open_url_get_url_and_go_back(page_session: BrowserSession, demo: DemoSite) -> None:
    said = await open_url(f"{demo.url}/login")
    assert said == f"Page loaded: {demo.url}/login, title 'Log in - Stride Shoes'."
    await open_url(f"{demo.url}/cart")
    assert (await get_url()).startswith(f"The current page is {demo.url}/cart")
    said = await go_back()
    assert f"Page navigated to {demo.url}/login" in said
    assert page_session.page.url == f"{demo.url}/login"


async def test_open_url_reports_http_errors_and_refuses_odd_schemes(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    assert "(HTTP 404)" in await open_url(f"{demo.url}/no/such/page")
    with pytest.raises(ActionError, match="Refusing to open a javascript: URL"):
        await open_url("javascript:alert(1)")


async def test_enter_text_with_enter_searches_and_names_the_element(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    dom = await get_dom("input_fields")
    said = await enter_text(mmid_for(dom, "searchbox"), "trail shoes", press_enter=True)
    assert said.startswith(
        'Text \'trail shoes\' entered in <input id="search-box" name="q" type="search" '
        'placeholder="Search products">. Pressed Enter.'
    )
    assert f"Page navigated to {demo.url}/search?q=trail+shoes." in said
    assert "mmid" not in said


async def test_enter_text_and_click_then_select_option_sorts(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    said = await enter_text_and_click("#search-box", "trail", "#search-submit")
    assert 'Clicked <button id="search-submit" type="submit">Search</button>' in said
    assert page_session.page.url == f"{demo.url}/search?q=trail"
    dom = await get_dom("input_fields")
    said = await select_option(mmid_for(dom, "combobox"), "Price: low to high")
    assert "Selected option 'price_asc' (Price: low to high) in <select id=\"sort\"" in said
    assert page_session.page.url.endswith("sort=price_asc")
    prices = await page_session.page.locator(
        "[data-testid=result] [class$=price]"
    ).all_inner_texts()
    values = [float(p.strip("$")) for p in prices]
    assert values == sorted(values) and len(values) > 1


async def test_select_option_lists_the_options_when_the_choice_is_unknown(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/search?q=trail")
    with pytest.raises(ActionError, match=r"has no option 'cheapest'.*'price_asc' \(Price"):
        await select_option("#sort", "cheapest")


async def test_click_adds_to_cart_and_reports_navigation(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/product/trail-blazer-2")
    await select_option("#size", "44")
    await enter_text("#quantity", "2")
    said = await click("#add-to-cart")
    assert said.startswith('Clicked <button id="add-to-cart" type="submit">Add to cart</button>.')
    assert f"Page navigated to {demo.url}/cart." in said
    assert await cart_cookie(page_session) == "trail-blazer-2:44:2"


async def test_password_is_never_echoed(page_session: BrowserSession, demo: DemoSite) -> None:
    await open_url(f"{demo.url}/login")
    said = await bulk_enter_text(
        [{"selector": "#username", "text": "demo"}, {"selector": "#password", "text": "secret123"}]
    )
    assert "Text 'demo' entered in <input id=\"username\"" in said
    assert "A password (9 characters, not shown) was entered in" in said
    assert "secret123" not in said
    assert "secret123" not in await get_dom("all_fields")
    said = await click("#login-button")
    assert "secret123" not in said
    assert page_session.page.url == f"{demo.url}/account"
    assert page_session.secrets == {"secret123"}


async def test_press_key_combination_submits_the_focused_field(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    await enter_text("#search-box", "sandals")
    said = await press_key_combination("Enter")
    assert said.startswith("Pressed Enter. Page navigated to")
    assert page_session.page.url == f"{demo.url}/search?q=sandals"


async def test_new_elements_in_a_shadow_root_are_reported(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/stores")
    dom = await get_dom("input_fields")
    await enter_text(mmid_for(dom, 'textbox "City or postal code"'), "Berlin")
    said = await click(mmid_for(dom, 'button "Find stores"'))
    assert re.search(r"\d+ new elements? appeared", said), said
    assert "Berlin" in await extract_text("#store-results")


async def test_iframe_form_is_usable_through_mmids(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    dom = await get_dom("input_fields")
    await enter_text(mmid_for(dom, 'textbox "Name"'), "Ada")
    await enter_text(mmid_for(dom, 'textbox "Message"'), "Where is my order?")
    await click(mmid_for(dom, 'button "Send"'))
    assert demo.submissions[-1]["form"] == "contact"
    assert demo.submissions[-1]["fields"]["name"] == "Ada"


async def test_hover_scroll_and_extract_text(page_session: BrowserSession, demo: DemoSite) -> None:
    await open_url(f"{demo.url}/big?n=2000")
    said = await scroll("down")
    assert re.match(r"Scrolled down: now showing \d+-\d+ px of \d+ px", said)
    assert await page_session.page.evaluate("window.scrollY") > 0
    assert (await scroll("top")).startswith("Scrolled top: now showing 0-")
    assert (await hover("#nav-deals")).startswith('Hovered over <a id="nav-deals" href="/deals">')
    await open_url(f"{demo.url}/product/trail-blazer-2")
    said = await extract_text("#price")
    assert re.fullmatch(
        rf"Text of <\w+ id=\"price\">.*</\w+>:\n{re.escape(PAGE_START)}\n'\$\d+\.\d\d'\n"
        rf"{re.escape(PAGE_END)}",
        said,
    ), said


async def test_modal_covering_the_page_is_a_clear_error(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/deals")
    with pytest.raises(ActionError, match="another element covers it"):
        await click("#nav-cart")
    said = await click("#accept-cookies")
    assert "Clicked" in said
    assert "Cart" in await click("#nav-cart")


async def test_selector_errors(page_session: BrowserSession, demo: DemoSite) -> None:
    await open_url(demo.url)
    with pytest.raises(ActionError, match="No element matches #nope") as nothing:
        await click("#nope")
    assert nothing.value.kind == "not_found" and nothing.value.selector == "#nope"
    with pytest.raises(ActionError, match=r"\d+ elements match a, e\.g\. <a") as several:
        await click("a")
    assert several.value.kind == "ambiguous"
    with pytest.raises(ActionError, match="is hidden") as hidden:
        await click("[data-demo-hidden=visibility-hidden]")
    assert hidden.value.kind == "hidden"
    with pytest.raises(ActionError, match="No element has mmid 99999"):
        await click("[mmid='99999']")


async def test_stale_mmid_naming_another_element_is_refused(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(demo.url)
    dom = await get_dom("input_fields")
    deals = mmid_for(dom, 'link "Deals"')
    # The page changes (a new link at the top) and is annotated again without the agent
    # looking: the old mmid now names a different element.
    await page_session.page.evaluate(
        "document.querySelector('#main-nav').prepend(Object.assign("
        "document.createElement('a'), {href: '/x', textContent: 'Surprise'}))"
    )
    await run_on_page(page_session.page, "observe", contentType="all_fields", budget=1000)
    with pytest.raises(ActionError, match=r"named a link 'Deals' when the page was observed") as e:
        await click(deals)
    assert e.value.kind == "changed"
    assert page_session.page.url == f"{demo.url}/"


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


async def test_navigation_timeout_is_a_clear_error(
    page_session: BrowserSession, silent_server: str
) -> None:
    page_session.page.set_default_navigation_timeout(1_000)
    with pytest.raises(ActionError, match=r"Could not open .*Timeout 1000ms") as error:
        await open_url(silent_server)
    assert error.value.kind == "navigation"


async def test_crashed_or_closed_page_is_a_clear_error(page_session: BrowserSession) -> None:
    await page_session.page.close()
    await page_session.context.new_page()
    assert "about:blank" in await get_url()  # falls over to the remaining page
    for page in page_session.context.pages:
        await page.close()
    with pytest.raises(Exception, match="The page was closed and no other page is open"):
        await get_url()


async def test_css_selectors_reach_into_iframes_and_frame_loads_are_reported(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    await enter_text("#contact-name", "Grace")
    await enter_text("#message", "Hello")
    demo.latency_ms = 400  # the frame's answer comes after the page has settled
    try:
        said = await click("#send")
    finally:
        demo.latency_ms = 0
    assert f"A frame of the page reloaded ({demo.url}/help/contact-frame)" in said
    assert demo.submissions[-1] == {
        "form": "contact",
        "fields": {"name": "Grace", "message": "Hello"},
    }
