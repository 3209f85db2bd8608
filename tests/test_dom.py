"""get_dom on the demo pages: every visible control listed with its mmid, nothing hidden."""

from __future__ import annotations

import re

import pytest

from browser_agent.browser.observe import observe_page
from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.skills.primitive import get_dom, open_url

# Every control on the page, including those in open shadow roots and same-origin frames,
# with its mmid and whether the demo page marks it (or an ancestor) as not usable.
CONTROLS_JS = """
() => {
  const SELECTOR = 'a[href],button,input,select,textarea,[role=button],[role=link]';
  const found = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches(SELECTOR)) {
        found.push({mmid: el.getAttribute('mmid'), html: el.outerHTML.slice(0, 80),
                    hidden: !!el.closest('[data-demo-hidden]') || el.type === 'hidden'});
      }
      if (el.shadowRoot) visit(el.shadowRoot);
      if (el.tagName === 'IFRAME' && el.contentDocument) visit(el.contentDocument);
    }
  };
  visit(document);
  return found;
}
"""

PAGES = [
    "/",
    "/search?q=trail+shoes",
    "/product/trail-blazer-2",
    "/login",
    "/checkout",
    "/help",
    "/stores",
    "/cart",
    "/deals",
]


def listed_mmids(text: str) -> set[str]:
    return set(re.findall(r"^\[(\d+)\]", text, flags=re.MULTILINE))


@pytest.mark.parametrize("path", PAGES)
async def test_input_fields_lists_every_visible_control_and_no_hidden_one(
    page_session: BrowserSession, demo: DemoSite, path: str
) -> None:
    await open_url(demo.url + path)
    text = await get_dom("input_fields")
    listed = listed_mmids(text)
    controls = await page_session.page.evaluate(CONTROLS_JS)
    visible = [c for c in controls if not c["hidden"]]
    hidden = [c for c in controls if c["hidden"]]
    assert visible and hidden
    missing = [c["html"] for c in visible if c["mmid"] not in listed]
    assert not missing, f"visible controls missing from get_dom: {missing}"
    leaked = [c["html"] for c in hidden if c["mmid"] in listed]
    assert not leaked, f"hidden controls listed: {leaked}"
    assert "Zero-size help link" not in text


async def test_all_fields_adds_text_and_text_only_has_no_mmids(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/product/trail-blazer-2")
    all_fields = await get_dom("all_fields")
    assert re.search(r'^\[\d+\] h1 "Trail Blazer 2"$', all_fields, flags=re.MULTILINE)
    assert re.search(r'combobox "Size" id=size options=\[.*"42":"42"\*', all_fields)
    assert "name=size" not in all_fields  # a named field's form key tells nothing more
    text_only = await get_dom("text_only")
    assert "Trail Blazer 2" in text_only
    assert not re.search(r"^\[\d+\]", text_only, flags=re.MULTILINE)
    assert len(text_only) < len(all_fields)


async def test_iframe_and_shadow_root_elements_get_mmids(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    text = await get_dom("input_fields")
    assert re.search(r'^\[\d+\] iframe "Contact form"', text, flags=re.MULTILINE)
    assert re.search(r'^\[\d+\] button "Send" id=send', text, flags=re.MULTILINE)
    await open_url(f"{demo.url}/stores")
    text = await get_dom("input_fields")
    assert re.search(r'^\[\d+\] textbox "City or postal code" id=store-query', text, re.M)


async def test_modal_is_announced(page_session: BrowserSession, demo: DemoSite) -> None:
    await open_url(f"{demo.url}/deals")
    text = await get_dom("all_fields")
    assert "A modal dialog is open" in text
    assert 'aria-label="Cookie consent"' in text


async def test_output_is_capped_and_says_what_was_cut(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/big?n=5000")
    observation = await observe_page(page_session, "all_fields", budget=4_000)
    assert len(observation.text) <= 4_400
    assert observation.cut > 0
    assert f"{observation.cut} more lines not shown" in observation.text
    assert observation.elements >= 5000


async def test_inline_markup_stays_one_line_and_iframe_content_is_closed(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/no/such/page")
    text = await get_dom("all_fields")
    assert re.search(r'^\[\d+\] "There is no page at /no/such/page\."$', text, re.M), text
    await open_url(f"{demo.url}/help")
    lines = (await get_dom("input_fields")).splitlines()
    start = next(i for i, line in enumerate(lines) if ' iframe "Contact form"' in line)
    end = lines.index('(end of iframe "Contact form")')
    inside = "\n".join(lines[start:end])
    assert 'button "Send"' in inside and "newsletter" not in inside
    assert "newsletter" in "\n".join(lines[end:])
