"""get_dom's lines say each element once and no more: page text has no kind, a list of items
names its kind once, a field's value follows its name, a named field leaves out its form key,
separators are not lines, and far-apart links of one name are told apart by what surrounds
them. Every reader (offline planner, harvester) takes the lines as the planner does."""

from __future__ import annotations

import re

from browser_agent.browser.observe import observe_page
from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.dom.page_lines import element_lines
from browser_agent.harvest.elements import observed_elements
from browser_agent.llm.offline.page import parse_page
from browser_agent.planner.prompts import prompt
from browser_agent.skills.primitive import click, get_dom, open_url
from tests.scripted import mmid


async def test_items_of_a_list_name_their_kind_once_and_each_window_names_it_again(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    pick = "this.setAttribute('aria-selected', 'true')"
    options = "".join(f'<li role="option" onclick="{pick}">Choice {i}</li>' for i in range(60))
    await page_session.page.set_content(
        f'<ul role="listbox" aria-label="Choices">{options}</ul>'
        '<div role="menu"><div role="menuitem">Open</div><div role="menuitem">Close</div></div>'
        "<button onclick=\"this.textContent='Done'\">Go</button>"
    )
    dom = await get_dom("input_fields")
    lines = dom.splitlines()
    first = next(i for i, line in enumerate(lines) if '"Choice 0"' in line)
    assert re.fullmatch(r'\[\d+\] option "Choice 0"', lines[first]), dom
    assert all(re.fullmatch(rf'\[\d+\] - "Choice {i}"', lines[first + i]) for i in range(1, 60))
    assert re.search(r'^\[\d+\] menuitem "Open"\n\[\d+\] - "Close"$', dom, re.M), dom
    assert re.search(r'^\[\d+\] button "Go"$', dom, re.M), dom  # another kind says its own
    page = parse_page(dom)
    kinds = {element.name: element.role for element in page.elements}
    assert kinds["Choice 59"] == "option" and kinds["Close"] == "menuitem", kinds
    chosen = re.search(r'^\[(\d+)\] - "Choice 42"$', dom, re.M).group(1)
    assert observed_elements(dom)[chosen] == ("option", "Choice 42")
    await click(mmid('option "Choice 42"')(dom))  # an item read off a "-" line is clickable
    assert f'[{chosen}] - "Choice 42" (selected)' in await get_dom("input_fields")
    # A window that starts within the list names the kind on its first line again.
    second = await observe_page(page_session, "input_fields", budget=400, page=2)
    body = second.text.split("\n", 3)[3]
    assert re.match(r'\[\d+\] option "Choice \d+"\n\[\d+\] - "Choice', body), second.text


async def test_text_has_no_kind_and_separators_are_not_lines(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    await page_session.page.set_content(
        '<p>Free shipping</p><a href="/a">Home</a><span> | </span><a href="/b">Deals</a>'
        "<span>»</span><span>, , ,</span><h2>Reviews</h2><div>★★★★☆</div>"
    )
    dom = await get_dom("all_fields")
    assert re.search(r'^\[\d+\] "Free shipping"$', dom, re.M), dom
    assert re.search(r'^\[\d+\] h2 "Reviews"$', dom, re.M), dom  # a heading says its level
    assert re.search(r'^\[\d+\] "★★★★☆"$', dom, re.M), dom  # symbols say something
    assert '"|"' not in dom and '"»"' not in dom and '", , ,"' not in dom, dom
    text_only = await get_dom("text_only")
    assert '"Free shipping"' in text_only and '"»"' not in text_only, text_only
    page = parse_page(dom)
    assert [e.role for e in page.elements if e.name == "Free shipping"] == ["text"]
    assert "Free shipping" in page.texts


async def test_a_field_shows_its_value_after_its_name_and_its_form_key_only_when_unnamed(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    await page_session.page.set_content(
        '<label>Email <input name="email_address" value="ada@example.com"></label>'
        '<input type="number" aria-label="Quantity" name="qty-1" value="2">'
        '<input name="coupon" value="SPRING 10">'  # no name but its form key
        '<textarea aria-label="Note"></textarea>'
        '<label><input type="checkbox" name="gift" value="wrap"> Gift</label>'
    )
    dom = await get_dom("input_fields")
    assert re.search(r'^\[\d+\] textbox "Email": "ada@example.com"$', dom, re.M), dom
    assert re.search(r'^\[\d+\] spinbutton "Quantity": 2$', dom, re.M), dom
    assert re.search(r'^\[\d+\] textbox: "SPRING 10" name=coupon$', dom, re.M), dom
    assert re.search(r'^\[\d+\] textbox "Note"$', dom, re.M), dom  # empty: no value
    assert re.search(r'^\[\d+\] checkbox "Gift" value=wrap \(unchecked\)$', dom, re.M), dom
    assert "email_address" not in dom and "qty-1" not in dom, dom
    fields = {e.name: e for e in parse_page(dom).elements}
    assert fields["Email"].attrs["value"] == "ada@example.com", fields
    assert fields["Quantity"].attrs["value"] == "2", fields
    assert fields[""].attrs == {"value": "SPRING 10", "name": "coupon"}, fields
    assert "value" not in fields["Note"].attrs, fields


async def test_far_apart_links_of_one_name_are_told_apart_by_what_surrounds_them(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/help")
    filler = "".join(f"<p>Paragraph {i}</p>" for i in range(25))
    await page_session.page.set_content(
        '<h2>Shoes</h2><a href="/shoes/edit">Edit</a><a href="/shoes/copy">Copy</a>'
        '<a href="/shoes/more">More</a>'
        f"{filler}"
        '<h2>Socks</h2><a href="/socks/edit">Edit</a><a href="/socks/copy">Copy</a>'
        '<a href="/socks/more">More</a><p>Between</p><a href="/socks/all">More</a>'
    )
    dom = await get_dom("all_fields")
    # more than 20 lines apart: what lies around each says which is which
    assert re.search(r'^\[\d+\] link "Edit"$', dom, re.M), dom
    assert "href=/shoes/edit" not in dom and "href=/socks/copy" not in dom, dom
    # two lines apart: the targets tell them apart
    assert 'link "More" href=/socks/more\n' in dom and 'link "More" href=/socks/all\n' in dom
    assert 'link "More" href=/shoes/more\n' not in dom, dom


def test_the_planner_prompt_describes_the_lines_as_they_are_read() -> None:
    system = prompt("system")
    examples = re.findall(r'\[\d+\](?: [a-z]+)? "[^"]*"(?:: "[^"]*")?', system)
    read = [next(element_lines([line])) for line in examples]
    assert [(e.kind, e.name, e.value) for e in read if e] == [
        ("button", "Save", None),
        ("text", "Free shipping", None),
        ("textbox", "Email", "ada@example.com"),
        ("link", "Posts", None),
    ], examples
    menu = re.search(r'\[\d+\] link "Posts" \([a-z ]+\)', system)
    assert menu is not None and parse_page(menu.group()).elements[0].states == {"has menu"}
    assert 'kind is "-"' in system and "within 20 lines" in system
