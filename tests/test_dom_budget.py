"""The size budget bounds get_dom's work, not only its output: on a 50,000-element page
the walk stops once the window is full (the rest is counted natively, not read), and
every element is still reachable by the next windows and by find_elements."""

from __future__ import annotations

import re

from browser_agent.browser.session import BrowserSession
from browser_agent.demo_site import DemoSite
from browser_agent.skills.primitive import find_elements, get_dom, open_url

ROWS = 6_250  # /big?n=50000: 6,250 rows of 8 elements


async def test_a_full_window_ends_the_walk_and_every_row_stays_within_reach(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/big?n={ROWS * 8}")
    page = page_session.page
    first = await get_dom("all_fields")
    annotated = await page.evaluate("document.querySelectorAll('[mmid]').length")
    every = await page.evaluate("document.getElementsByTagName('*').length")
    assert every > ROWS * 8 and annotated < every // 10  # the walk stopped early
    below = re.search(r"^Window 1 from the top: (\d+) below \(get_dom page=2", first, re.M)
    assert below is not None, first
    assert int(below.group(1)) >= ROWS * 3 - annotated  # counted, though not walked
    assert re.search(r"at least \d+ more lines not shown", first)

    last = await get_dom("all_fields", page=-1)
    assert re.search(rf'^\[\d+\] link "[^"]* #{ROWS}"', last, re.M), last[:500]

    found = await find_elements(f"Quantity for row {ROWS}")
    assert re.search(rf'^\[\d+\] spinbutton "Quantity for row {ROWS}"', found, re.M), found[:500]


async def test_a_modal_dialog_after_the_cut_is_still_said(
    page_session: BrowserSession, demo: DemoSite
) -> None:
    await open_url(f"{demo.url}/big?n=20000")
    await page_session.page.evaluate(
        """() => { const d = document.createElement('dialog'); d.textContent = 'Sign up';
        document.body.append(d); d.showModal(); }"""
    )
    seen = await get_dom("input_fields")
    assert "A modal dialog is open (<dialog" in seen, seen[:400]
