"""Near misses: final pages close to what a command asked, but wrong, and the right ones.

Each case is a command, the page a run ends on and what the checker must say of it:
``succeeded`` (the page shows what was asked), ``failed`` (the page is found wrong: an
error, a login page, a form holding the thing named, "X does not exist") or
``unverified`` (the page does not show the state asked for). The same checks serve a run's
finish and a skill's end (see tests/test_end_state.py); here every rule of the checker
meets a page it must refuse and one it must accept. Real Chromium, pages on 127.0.0.1.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote_plus, unquote_plus

import pytest
from playwright.async_api import Browser
from playwright.async_api import Error as PlaywrightError

from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.types import FunctionClient
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.skills.end_state import end_state
from browser_agent.store.db import open_store
from browser_agent.words.values import command_values, search_terms
from tests.scripted import Script, calls_in_order, finish, mmid


def _page(title: str, body: str) -> str:
    return f"<!doctype html><html lang=en><title>{title}</title><body>{body}</body></html>"


SEARCH_BOX = (
    '<form action=/search><input type=search name=q value="{q}"><button>Search</button></form>'
)
LOGIN_FORM = (
    "<form method=post action=/login><label>User <input name=user value=ada></label>"
    "<label>Password <input type=password name=pw></label><button>Log in</button></form>"
)


def _sightings(counts: list[int], species: tuple[str, ...] = ("Robin",)) -> str:
    rows = "".join(
        f"<tr><td>{species[i % len(species)]}</td><td>{n:,}</td></tr>" for i, n in enumerate(counts)
    )
    return f"<table><tr><th>Species</th><th>Count</th></tr>{rows}</table>"


# path: (HTTP status, page)
PAGES: dict[str, tuple[int, str]] = {
    "/dashboard": (
        200,
        _page(
            "Dashboard – Team Wiki",
            SEARCH_BOX.format(q="")
            + "<h1>Dashboard</h1><aside><h2>News</h2><p>RSS Error: the feed could not be "
            "loaded.</p></aside>",
        ),
    ),
    "/sightings-up": (200, _page("Sightings", _sightings([2, 15, 300, 1200]))),
    "/sightings-down": (200, _page("Sightings", _sightings([1200, 300, 15, 2]))),
    "/sightings-mixed": (200, _page("Sightings", _sightings([40, 3], ("Robin", "Wren")))),
    "/sightings-birds": (
        200,
        _page("Sightings", _sightings([1, 2, 3], ("wren", "Robin", "avocet"))),
    ),
    "/": (
        200,
        _page(
            "Front page – Team Wiki",
            SEARCH_BOX.format(q="")
            + '<h1>Team Wiki</h1><p>Recent: <a href="/wiki/Gamma">Gamma</a></p>',
        ),
    ),
    "/wiki/Beta_Page": (
        200,
        _page(
            "Beta Page – Team Wiki",
            SEARCH_BOX.format(q="")
            + "<h1>Beta Page</h1><p>What beta testers need.</p>"
            + '<a href="/wiki/Beta_Page?action=history">History</a>'
            + '<a id=away href="{elsewhere}/wiki/Beta_Page">Beta Page elsewhere</a>',
        ),
    ),
    "/wiki/Page_titled_Beta_Page?action=edit": (
        200,
        _page(
            'Page titled "Beta Page" – Team Wiki',
            '<h1>Creating Page titled "Beta Page"</h1><form method=post><textarea name=text>'
            "</textarea><button>Save</button></form>",
        ),
    ),
    "/new-page": (
        200,
        _page(
            "New page – Team Wiki",
            '<h1>New page</h1><form method=post><input name=title value="Beta Page">'
            "<textarea name=text></textarea><button>Save</button></form>",
        ),
    ),
    "/search?q=Beta+Page": (
        200,
        _page(
            "Search – Team Wiki",
            SEARCH_BOX.format(q="Beta Page")
            + '<h1>Search</h1><ul><li><a href="/wiki/Beta_Page">Beta Page</a> — what beta testers'
            " need</li></ul>",
        ),
    ),
    "/wiki/Gone_Page": (
        200,
        _page(
            "Gone Page – Team Wiki",
            "<p>The page Gone Page does not exist. You can create it here.</p>"
            "<form><button>Create this page</button></form>",
        ),
    ),
    "/wiki/Beta_Page?action=history": (
        200,
        _page(
            "Beta Page (history) – Team Wiki",
            "<h1>Change History of Beta Page</h1><table><tr><td>3</td><td>ada</td></tr></table>",
        ),
    ),
    "/wiki/Gamma": (
        200,
        _page("Gamma – Team Wiki", "<h1>Gamma</h1><p>Hello there, readers.</p>"),
    ),
    "/wiki/Gamma-empty": (
        200,
        _page("Gamma – Team Wiki", "<h1>Gamma</h1><p>This page has no text yet.</p>"),
    ),
    # a block editor: the title and text typed in contenteditable boxes, nothing published
    "/post-new": (
        200,
        _page(
            "Add New Post – Team Wiki",
            '<h1 contenteditable=true role=textbox aria-label="Add title">Gamma</h1>'
            '<div contenteditable=true role=textbox aria-label="Text"><p>Hello there</p></div>'
            "<button>Publish</button>",
        ),
    ),
    "/wiki/Gamma?action=edit": (
        200,
        _page(
            "Editing – Team Wiki",
            '<h1>Editing</h1><form method=post><input name=title value="Gamma">'
            "<textarea name=text>Hello there, readers.</textarea><button>Save</button></form>",
        ),
    ),
    "/oops": (
        200,
        _page("Error – Team Wiki", "<h1>Something went wrong</h1><p>Beta Page could not load.</p>"),
    ),
    "/missing": (404, _page("Beta Page – Team Wiki", "<h1>Beta Page</h1>")),
    "/login-failed": (
        200,
        _page(
            "Log in – Team Wiki", "<h1>Log in</h1><p>Wrong user name or password.</p>" + LOGIN_FORM
        ),
    ),
    "/login-wall": (
        200,
        _page("Log in – Team Wiki", "<h1>Log in</h1><p>Log in to see this page.</p>" + LOGIN_FORM),
    ),
    "/signed-in": (
        200,
        _page("Dashboard – Team Wiki", "<p>Signed in as ada</p><h1>Dashboard</h1>"),
    ),
    "/milestones": (
        200,
        _page(
            "Milestones – Tracker",
            "<h1>Milestones</h1><ul><li>Sprint 3</li><li>Sprint 4</li><li>Sprint 5</li></ul>",
        ),
    ),
    "/milestones-after": (
        200,
        _page(
            "Milestones – Tracker",
            "<p>The milestone Sprint 4 was removed.</p><h1>Milestones</h1>"
            "<ul><li>Sprint 3</li><li>Sprint 5</li></ul>",
        ),
    ),
    "/board": (
        200,
        _page(
            "Board – Tracker",
            '<h1>Board</h1><ul><li><a href="/milestone/Sprint_3">Sprint 3</a></li>'
            '<li><a href="/milestone/Sprint_4">Sprint 4</a></li></ul>',
        ),
    ),
    "/milestones-left": (
        200,
        _page("Milestones – Tracker", "<h1>Milestones</h1><ul><li>Sprint 3</li></ul>"),
    ),
    "/milestone/Sprint_4": (
        200,
        _page("Milestone Sprint 4 – Tracker", "<h1>Milestone Sprint 4</h1><p>Due soon.</p>"),
    ),
    "/search": (
        200,
        _page("Search – Tracker", '<h1>Search</h1><form><input name="q"></form>'),
    ),
}

CREATE_GAMMA = 'create a page titled "Gamma" with the text "Hello there"'
# (command, path the run ends on, what the checker says)
CASES = [
    ('open the page titled "Beta Page"', "/wiki/Beta_Page", "succeeded"),
    ("open the page titled Beta Page", "/wiki/Beta_Page", "succeeded"),
    ('open the page titled "Beta Page"', "/wiki/Page_titled_Beta_Page?action=edit", "unverified"),
    ('open the page titled "Beta Page"', "/new-page", "failed"),
    ('open the page titled "Beta Page"', "/search?q=Beta+Page", "failed"),
    ('open the page "Gone Page"', "/wiki/Gone_Page", "failed"),
    ('open the page titled "Beta Page"', "/wiki/Beta_Page?action=history", "unverified"),
    ('open the page titled "Beta Page"', "/login-wall", "failed"),
    ('open the page titled "Beta Page"', "/oops", "failed"),
    ('open the page titled "Beta Page"', "/missing", "failed"),
    ('view the history of the page "Beta Page"', "/wiki/Beta_Page?action=history", "succeeded"),
    ('view the history of the page "Beta Page"', "/wiki/Beta_Page", "unverified"),
    (
        'open the page "Beta Page" and view its history',
        "/wiki/Beta_Page?action=history",
        "succeeded",
    ),
    ('open the page "Beta Page" and view its history', "/wiki/Beta_Page", "unverified"),
    ('create a page titled "Gamma" with the text "Hello there"', "/wiki/Gamma", "succeeded"),
    ('create a page titled "Gamma" with the text "Hello there"', "/wiki/Gamma-empty", "unverified"),
    (
        'create a page titled "Gamma" with the text "Hello there"',
        "/wiki/Gamma?action=edit",
        "unverified",
    ),
    ('create a page titled "Gamma" with the text "Hello there"', "/post-new", "unverified"),
    ('edit the page "Gamma" to add the text "Hello there"', "/wiki/Gamma", "succeeded"),
    ('edit the page "Gamma" to add the text "Hello there"', "/wiki/Gamma-empty", "unverified"),
    ("log in as ada with password {PW}", "/signed-in", "succeeded"),
    ("log in as ada with password {PW}", "/login-failed", "failed"),
    ('remove the milestone "Sprint 4"', "/milestones-after", "succeeded"),
    ('remove the milestone "Sprint 4"', "/milestones", "unverified"),
    ('remove the milestone "Sprint 4"', "/milestones-left", "succeeded"),
    # pages that merely do not list it: no notice of its removal, no list of its kind
    ('remove the milestone "Sprint 4"', "/search", "unverified"),
    ('remove the milestone "Sprint 4"', "/dashboard", "unverified"),
    ('remove the milestone "Sprint 4"', "/search?q=Sprint+4", "unverified"),
    ('remove the milestone "Sprint 4"', "/milestone/Sprint_4", "unverified"),
    ('remove the milestone "Sprint 4"', "/login-wall", "failed"),
    ("sort the sightings by count, highest first", "/sightings-down", "succeeded"),
    ("sort the sightings by count, highest first", "/sightings-up", "unverified"),
    ("sort the sightings by count, lowest first", "/sightings-up", "succeeded"),
    # a column of words is in the order of its letters, or not sorted
    ("sort the sightings by species, highest first", "/sightings-mixed", "unverified"),
    ("sort the sightings by species, lowest first", "/sightings-mixed", "succeeded"),
    ("sort the sightings by species, highest first", "/sightings-birds", "succeeded"),
    ("sort the sightings by species, lowest first", "/sightings-birds", "unverified"),
    # named by their cells' values: the rows holding them, not the whole list
    ("show the robin sightings", "/sightings-up", "succeeded"),
    ("show the robin sightings", "/sightings-mixed", "unverified"),
    ("show the sightings where species is robin", "/sightings-up", "succeeded"),
    ("show the sightings where species is robin", "/sightings-mixed", "unverified"),
    ("show the sightings with a count greater than 10", "/sightings-down", "unverified"),
    ("show the sightings with a count greater than 1", "/sightings-down", "succeeded"),
    ("search for Beta Page", "/search?q=Beta+Page", "succeeded"),
    ("search for Beta Page", "/oops", "failed"),
    ("search for Beta Page", "/loop", "failed"),
]


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the handler's name
        if self.path == "/loop":  # a redirect to itself, for ever
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        status, html = PAGES.get(self.path, (404, _page("Not Found", "<h1>Not Found</h1>")))
        if self.path.startswith("/search?q=") and self.path not in PAGES:  # nothing found
            term = unquote_plus(self.path.split("=", 1)[1])
            status, html = (
                200,
                _page(
                    "Search – Team Wiki",
                    SEARCH_BOX.format(q=term) + f'<h1>Search</h1><p>No results for "{term}".</p>'
                    f'<a href="/new-page?title={quote_plus(term)}">Create the page "{term}"</a>',
                ),
            )
        body = html.replace("{elsewhere}", ELSEWHERE).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


ELSEWHERE = "http://127.0.0.1:9"  # another site: a run that started on the wiki may not go


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def verdict(shown: bool, wrong: bool) -> str:
    return "succeeded" if shown else "failed" if wrong else "unverified"


async def test_each_near_miss_is_refused_and_each_right_end_accepted(
    site: str, browser: Browser
) -> None:
    context = await browser.new_context()
    page = await context.new_page()
    said = []
    try:
        for command, path, expected in CASES:
            try:
                await page.goto(site + path)
            except PlaywrightError:  # a redirect loop: the browser shows its own error page
                await page.wait_for_url(lambda url: url.startswith("chrome-error:"))
            end = await end_state(
                page,
                command_values(command),
                searched=search_terms(command),
                command=command,
            )
            got = verdict(end.shown, bool(end.wrong or end.status))
            said.append((command, path, got, expected, end.said()))
    finally:
        await context.close()
    wrong = [case for case in said if case[2] != case[3]]
    assert not wrong, "\n".join(f"{c!r} on {p}: {g}, not {e} ({why})" for c, p, g, e, why in wrong)


async def test_a_finish_on_the_editor_of_a_page_named_like_it_fails_the_run(
    site: str, settings: Settings, browser: Browser
) -> None:
    """The run that opened a new page's editor and said "done" ends failed, with why; the
    same run on the page itself succeeds."""
    engine = open_store(settings)
    done = finish("Opened it.")
    wrong = await run_command(
        'open the page titled "Beta Page"',
        calls_in_order(("open_url", {"url": f"{site}/new-page"}), done, done),
        settings,
        start_url=f"{site}/wiki/Beta_Page",
        browser=browser,
        engine=engine,
    )
    assert wrong.status == "failed", wrong.answer
    assert "The end state is wrong: the final page" in wrong.answer
    assert "is a form holding 'Beta Page'" in wrong.answer
    right = await run_command(
        'open the page titled "Beta Page"',
        calls_in_order(("open_url", {"url": f"{site}/wiki/Beta_Page"}), done),
        settings,
        start_url=f"{site}/new-page",
        browser=browser,
        engine=engine,
    )
    assert right.status == "succeeded", right.answer


@pytest.mark.parametrize(
    ("command", "status", "ends_on"),
    [
        ('open the page titled "Beta Page"', "succeeded", "/wiki/Beta_Page"),
        ("open the page titled Beta Page", "succeeded", "/wiki/Beta_Page"),
        ('view the history of the page "Beta Page"', "succeeded", "?action=history"),
        ('open the page titled "Delta Page"', "failed", "/search?q=Delta+Page"),
        ("search for Beta Page", "succeeded", "/search?q=Beta+Page"),
    ],
)
async def test_the_embedded_planner_opens_the_thing_named_not_the_words_around_it(
    command: str, status: str, ends_on: str, site: str, settings: Settings, browser: Browser
) -> None:
    """It searches for X (not "page titled X"), follows X's link and checks the page is X;
    a page that does not exist is not made "done" by the offer to create it."""
    start = f"{site}/dashboard" if command.startswith("search") else f"{site}/"  # its news
    result = await run_command(
        command, OfflinePlanner(), settings, start_url=start, browser=browser
    )
    assert result.status == status, result.answer
    assert result.final_url and result.final_url.endswith(ends_on), result.final_url


async def test_a_finish_right_after_a_refused_navigation_fails_the_run(
    site: str, settings: Settings, browser: Browser
) -> None:
    """The link led off the run's site, the boundary refused it, the tab stayed on a page
    that shows the values: the run did not get where it went, and says so."""
    done = finish("Opened it.")
    run = await run_command(
        'open the page titled "Beta Page"',
        calls_in_order(
            ("open_url", {"url": f"{site}/wiki/Beta_Page"}),
            ("click", {"selector": "#away"}),
            done,
            done,
        ),
        settings,
        start_url=f"{site}/wiki/Beta_Page",
        browser=browser,
        engine=open_store(settings),
    )
    assert run.status == "failed", run.answer
    assert "a navigation was refused" in run.answer


async def test_a_removal_is_judged_where_the_run_found_the_thing(
    site: str, settings: Settings, browser: Browser
) -> None:
    """The run opened Sprint 4 from the board, then went to a list of its kind without it:
    the board, read again, still lists Sprint 4, so nothing was removed."""
    wandered = Script(
        [
            ("open_url", lambda _dom: {"url": f"{site}/board"}),
            ("get_dom", lambda _dom: {"content_type": "all_fields"}),
            ("click", lambda dom: {"selector": mmid('link "Sprint 4"')(dom)}),
            ("open_url", lambda _dom: {"url": f"{site}/milestones-left"}),
        ],
        answer="Removed it.",
    )
    result = await run_command(
        'remove the milestone "Sprint 4"',
        FunctionClient(wandered),
        settings.with_overrides(use_skills=False),
        start_url=f"{site}/board",
        browser=browser,
    )
    assert result.status == "unverified", result.answer
    assert "/board still lists it" in result.answer
