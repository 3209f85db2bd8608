"""Menus that open by pointing: a link that says it has a menu (ARIA's aria-haspopup) and
goes elsewhere when clicked keeps its items off the page until pointed at, as an
administration's side menu does ("Posts", its Categories and Tags kept at top: -1000em).
The page's lines say "(has menu)"; the embedded planner points at such a link to look
for a control the page does not show, and a message the page shows meanwhile is not the
task's failure. A menu pointed at in vain is left out of the skill learnt from the run,
unless the skill needs it. Success is the site's own state."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.async_api import Browser
from sqlalchemy import Engine

from browser_agent.browser.session import BrowserSession
from browser_agent.harvest.calls import Call
from browser_agent.harvest.detours import SAME_PAGE, run_detours
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.offline.menus import is_toggle, open_menu
from browser_agent.llm.offline.page import parse_page
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.skills.primitive import get_dom, open_url
from browser_agent.store.db import open_store
from browser_agent.testing.miniwob_site import start_miniwob_site
from tests.scripted import Script, mmid
from tests.served_site import ServedSite
from tests.test_record import no_llm

_STYLE = (
    "<style>#menu{width:120px} #menu li{position:relative}"
    " .sub{position:absolute;left:100%;top:-1000em;z-index:9;width:160px;background:#eee}"
    " #menu li:hover>.sub{top:0}</style>"
)
_SECTIONS = {  # the side menu: each section's link, and the items its fly-out holds
    "New": ("/admin/posts/new", [("Post", "/admin/posts/new"), ("User", "/admin/users/new")]),
    "Posts": ("/admin/posts", [("All Posts", "/admin/posts"), ("Categories", "/admin/categories")]),
    "Users": ("/admin/users", [("All Users", "/admin/users"), ("Profile", "/admin/profile")]),
}
#: Shown by the dashboard the first time the pointer moves over it, as a panel that loads
#: late shows its error: the page's own, whatever the pointer was doing.
_LATE_PANEL = (
    "<div id=feed></div><script>document.addEventListener('mouseover', () => {"
    "document.getElementById('feed').textContent = "
    "'Error: the news feed could not be loaded.'}, {once: true});</script>"
)


@dataclass
class AdminSite(ServedSite):
    """A dashboard whose side menu keeps Categories in the fly-out of "Posts"; the
    categories' page lists them above a form that adds one. Its state: the categories."""

    categories: list[str] = field(default_factory=lambda: ["Field notes"])
    # the categories' form sends only once the pointer has been over "Posts" (a page whose
    # pointing does more than show a menu)
    guarded: bool = False

    def _page(self, title: str, body: str) -> bytes:
        items = "".join(
            f'<li><a href="{href}" aria-haspopup="true">{name}</a><ul class="sub">'
            + "".join(f'<li><a href="{h}">{n}</a></li>' for n, h in sub)
            + "</ul></li>"
            for name, (href, sub) in _SECTIONS.items()
        )
        return (
            f"<!doctype html><html lang=en><title>{title} - Admin</title>{_STYLE}<body>"
            f'<nav><ul id="menu"><li><a href="/admin/">Dashboard</a></li>{items}</ul></nav>'
            f"<main><h1>{title}</h1>{body}</main></body></html>"
        ).encode()

    def _send(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.end_headers()
        request.wfile.write(body)

    def _get(self, request: BaseHTTPRequestHandler) -> None:
        path = request.path.split("?")[0]
        if path == "/admin/":
            self._send(request, self._page("Dashboard", "<p>Welcome back.</p>" + _LATE_PANEL))
        elif path == "/admin/categories":
            listed = "".join(f"<li>{html.escape(name)}</li>" for name in self.categories)
            form = (
                '<h2>Add New Category</h2><form method="post" action="/admin/categories">'
                '<label for="name">Name</label><input id="name" name="name">'
                '<button type="submit">Add New Category</button></form>'
            )
            if self.guarded:
                form += (
                    "<script>let pointed = false; document.querySelector('#menu a[href="
                    "\"/admin/posts\"]').addEventListener('mouseover', () => pointed = true);"
                    "document.forms[0].addEventListener('submit', e => pointed || "
                    "e.preventDefault());</script>"
                )
            self._send(request, self._page("Categories", f"{form}<ul>{listed}</ul>"))
        elif path in ("/admin/posts", "/admin/users", "/admin/profile", "/admin/posts/new",
                      "/admin/users/new"):  # fmt: skip
            self._send(request, self._page(path.rsplit("/", 1)[1].capitalize(), "<p>None.</p>"))
        else:
            request.send_error(404)

    def _post(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        form = parse_qs(request.rfile.read(length).decode())
        name = form.get("name", [""])[0].strip()
        if request.path != "/admin/categories" or not name:
            request.send_error(400)
            return
        self.categories.append(name)
        request.send_response(303)
        request.send_header("Location", "/admin/categories")
        request.end_headers()


@pytest.fixture
def admin() -> Iterator[AdminSite]:
    with AdminSite() as site:
        yield site


async def adds_with_no_model(
    admin: AdminSite, settings: Settings, browser: Browser, engine: Engine, start: str
) -> None:
    """The next category is added by the learnt skill, routed with no model call."""
    again = await run_command(
        'add the category "Otter bank"', FunctionClient(no_llm), settings, start_url=start,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert again.status == "succeeded" and again.llm_calls == 0, again.answer
    assert admin.categories[-1] == "Otter bank"


async def test_a_control_in_a_menu_opened_by_pointing_is_reached_learnt_and_used_again(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """Categories shows only while "Posts" is pointed at: the planner points at "New" (a
    menu of things to make: no category), then at "Posts", follows Categories and adds
    the category, though the dashboard showed an error of its own meanwhile. The run is
    learnt without its detours (the pointing at "New", then a click on "Dashboard" that
    came back to the dashboard: the next action was on "Posts", shown before each), and
    the skill adds the next one with no model."""
    start = f"{admin.url}/admin/"
    done = await run_command(
        'add the category "Heron flats"', OfflinePlanner(), settings, start_url=start,
        browser=browser,
    )  # fmt: skip
    assert done.status == "succeeded", done.answer
    assert admin.categories == ["Field notes", "Heron flats"]
    assert 'open the menu behind the link "Posts"' in (done.answer or "")
    # in page order: a part of the site named "Users" is not a user's menu, opened first
    assert 'the link "Users"' not in (done.answer or ""), done.answer
    engine = open_store(settings)
    (learnt,) = await harvest([Path(done.log_path)], settings, engine, browser=browser)
    assert learnt.skill is not None and learnt.verified, learnt.error or learnt.verify_error
    assert 'open the menu behind the link "New"' in (done.answer or "")
    # the planner's detours are not the skill's: the menu opened in vain, and the click on
    # "Dashboard" that came back to the dashboard (the next action used what it showed)
    assert 'open the link "Dashboard"' in (done.answer or "")
    assert learnt.skill.source.count("hover(") == 1 and learnt.skill.source.count("click(") == 2
    assert any("(hover) left out: the next action was on an element" in d for d in learnt.dropped)
    assert any("(click) left out: it led back to the page it was on" in d for d in learnt.dropped)
    await adds_with_no_model(admin, settings, browser, engine, start)


def test_a_link_with_a_menu_is_pointed_at_and_a_toggle_that_folds_is_clicked() -> None:
    """A link going elsewhere that has a menu opens it by pointing; one to "#" that has a
    menu and says it is collapsed is a toggle a click opens; a plain link is no menu."""
    page = parse_page(
        '[1] link "Posts" (has menu)\n'
        '[2] link "More" href="#" (collapsed, has menu)\n'
        '[3] link "Pages"\n'
    )
    posts, more, pages = page.elements
    assert is_toggle(posts) and open_menu(posts, "x").tool == "hover"
    assert is_toggle(more) and open_menu(more, "x").tool == "click"
    assert not is_toggle(pages)


async def test_items_of_a_menu_with_a_submenu_say_they_have_a_menu(
    page_session: BrowserSession,
) -> None:
    """MiniWoB's click-menu (a jQuery UI menu): each item shown says "(has menu)" exactly
    when a submenu hangs from it."""
    said: dict[str, bool] = {}
    with start_miniwob_site() as miniwob:
        for seed in range(4):
            await open_url(miniwob.task_url("click-menu", seed))
            dom = await get_dom("all_fields")
            hanging = await page_session.page.eval_on_selector_all(
                "#menu > li",
                "items => items.map(i => [i.firstElementChild.textContent, "
                "i.querySelector('ul') !== null])",
            )
            for name, has_submenu in hanging:
                line = re.search(rf'^\[\d+\] (?:menuitem|-) "{name}"[^\n]*$', dom, re.M)
                assert line is not None, dom
                assert ("(has menu)" in line.group()) == has_submenu, line.group()
                said[name] = has_submenu
    assert True in said.values() and False in said.values(), said


async def test_pointing_left_out_that_the_skill_needs_is_taken_again(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """A model points at "Posts" and then types in a field the page showed before: the
    pointing reads as a detour and is left out, but the form sends only after it, so the
    skill without it is not verified; harvested again with every call, it is, and adds
    the next category with no model."""
    admin.guarded = True
    start = f"{admin.url}/admin/categories"
    script = Script(
        [
            ("open_url", lambda _dom: {"url": start}),
            ("get_dom", lambda _dom: {"content_type": "all_fields"}),
            ("hover", lambda dom: {"selector": mmid('link "Posts"')(dom)}),
            ("get_dom", lambda _dom: {"content_type": "all_fields"}),
            (
                "enter_text",
                lambda dom: {"selector": mmid('textbox "Name"')(dom), "text": "Heron flats"},
            ),  # fmt: skip
            ("click", lambda dom: {"selector": mmid('button "Add New Category"')(dom)}),
            ("get_dom", lambda _dom: {"content_type": "all_fields"}),
        ],
        answer="Added the category Heron flats.",
    )
    done = await run_command(
        'add the category "Heron flats"', FunctionClient(script), settings, start_url=start,
        browser=browser,
    )  # fmt: skip
    assert done.status == "succeeded", done.answer
    assert admin.categories[-1] == "Heron flats"
    engine = open_store(settings)
    (learnt,) = await harvest([Path(done.log_path)], settings, engine, browser=browser)
    assert learnt.skill is not None and learnt.verified, learnt.error or learnt.verify_error
    assert "hover(" in learnt.skill.source
    await adds_with_no_model(admin, settings, browser, engine, start)


def test_a_click_is_a_detour_only_when_it_came_back_to_a_page_of_the_same_title() -> None:
    """A click on a link to the page itself (its title the same after, and no new control,
    its text aside) whose next action used what the page showed before is a detour; a click
    to another page is not, though the next action's link (a side menu's) was on the page
    before too, nor one to the same title with other controls (a list filtered)."""

    def look(title: str, row: str = "Heron", panel: str = "Loading the feed") -> Call:
        page = (
            f'Page "{title}" at http://127.0.0.1:1/\n[1] link "Dashboard"\n[2] link "Users"\n'
            f'[3] link "{row}"\n[4] "{panel}"'
        )
        return Call("get_dom", {"content_type": "all_fields"}, page)

    def click(mmid_: str, to: str) -> Call:
        said = f"Clicked <a>x</a>. Page navigated to http://127.0.0.1:1{to}."
        return Call("click", {"selector": f"[mmid='{mmid_}']"}, said)

    def calls(title_after: str, row_after: str = "Heron") -> list[Call]:
        after = look(title_after, row_after, panel="The feed could not be loaded.")
        return [look("Dashboard"), click("1", "/admin/"), after, click("2", "/u")]

    assert run_detours(calls("Dashboard")) == {1: SAME_PAGE}
    assert run_detours(calls("Users")) == {}
    assert run_detours(calls("Dashboard", row_after="Otter")) == {}
