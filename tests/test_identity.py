"""An element known by its identity, many attributes scored together: after a wiki's
interface switched to German, the links a skill recorded on the English page are found
by their id, the pattern of their address and their place (healed, and the repair says
so); two candidates that score alike are a guess, not acted on; an element that is gone
is stale, not healed to another. The wiki is served on 127.0.0.1 in either language."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from browser_agent.browser.session import BrowserSession
from browser_agent.skills import identity
from browser_agent.skills.identity import MARGIN, MINIMUM, address_similarity, varying_values
from browser_agent.skills.primitive import click, open_url
from browser_agent.skills.runtime import SkillStale, Target, expect, find, repairing

WORDS = {
    "en": {"edit": "Edit this page", "history": "History", "projects": "Projects",
           "help": "Help", "pdf": "Also available in PDF", "body": "A page of the wiki."},
    "de": {"edit": "Diese Seite bearbeiten", "history": "Versionen", "projects": "Projekte",
           "help": "Hilfe", "pdf": "Auch abrufbar als PDF", "body": "Eine Seite des Wikis."},
}  # fmt: skip


def wiki_page(title: str, words: dict[str, str], layout: str) -> str:
    """A wiki page: the menu, the page's own actions, its text, its footer. ``layout``
    "twice" shows the edit link at the top and again below the text, with no id; "gone"
    shows no edit link (as to a visitor who may not edit)."""
    edit_id = ' id="wiki-edit"' if layout == "wiki" else ""
    edit = f'<a href="/wiki/{title}/edit"{edit_id} class="icon icon-edit">{words["edit"]}</a>'
    top = "" if layout == "gone" else edit
    below = f'<div class="contextual">{edit}</div>' if layout == "twice" else ""
    return f"""<!doctype html><html><head><title>{title}</title></head><body>
<header id="top-menu"><nav><a href="/projects">{words["projects"]}</a>
<a href="/help">{words["help"]}</a></nav></header>
<main id="content"><p class="breadcrumb">Wiki » {title}</p>
<div class="contextual">{top}
<a href="/wiki/{title}/history" class="icon icon-history">{words["history"]}</a></div>
<h1>{title}</h1><p>{words["body"]}</p>{below}</main>
<footer><a href="/wiki/{title}/export.pdf">{words["pdf"]}</a></footer></body></html>"""


class _Wiki(BaseHTTPRequestHandler):
    """/wiki/<title> (and /twice/<title>, /gone/<title>) in the site's language ``lang``;
    /wiki/<title>/edit and /wiki/<title>/history answer with a page of their own."""

    lang = "en"

    def do_GET(self) -> None:  # noqa: N802
        parts = self.path.strip("/").split("/")
        if len(parts) == 2:
            body = wiki_page(parts[1], WORDS[self.lang], parts[0])
        else:
            body = f"<!doctype html><title>{parts[-1]}</title><h1>{' '.join(parts)}</h1>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def wiki() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Wiki)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def german() -> Iterator[None]:
    """The wiki's interface in German, as an admin would switch it."""
    _Wiki.lang = "de"
    yield
    _Wiki.lang = "en"


# Recorded on the English page /wiki/Start, as the harvester records them.
EDIT = Target(
    step=2,
    selector="#wiki-edit",
    role="link",
    name="Edit this page",
    tag="a",
    text="Edit this page",
    attributes={"id": "wiki-edit", "href": "/wiki/Start/edit"},
    xpath="//a[@id='wiki-edit']",
    near="Wiki » Start",
    intent="click on the link 'Edit this page'",
)
HISTORY = Target(
    step=2,
    selector='role=link[name="History"]',
    role="link",
    name="History",
    tag="a",
    text="History",
    attributes={"href": "/wiki/Start/history"},
    xpath="//a[normalize-space()='History']",
    near="Wiki » Start",
)
EDIT_NO_ID = Target(
    step=2,
    selector='role=link[name="Edit this page"]',
    role="link",
    name="Edit this page",
    tag="a",
    text="Edit this page",
    attributes={"href": "/wiki/Start/edit"},
    xpath="//a[normalize-space()='Edit this page']",
    near="Wiki » Start",
)


async def test_the_recorded_link_is_found_on_the_english_page_with_no_healing(
    wiki: str, page_session: BrowserSession
) -> None:
    await open_url(f"{wiki}/wiki/Start")
    with repairing() as repairs:
        assert await find(EDIT) == "#wiki-edit"
    assert repairs.done == []


async def test_links_relabelled_in_german_are_healed_by_their_identity(
    wiki: str, german: None, page_session: BrowserSession
) -> None:
    """ "Edit this page" reads "Diese Seite bearbeiten" and goes to the edit page of the
    page the skill is on now: its id and its address's pattern say it is the same link."""
    await open_url(f"{wiki}/wiki/Kestrel")
    with repairing() as repairs:
        said = await click(await find(EDIT))
        await expect(EDIT, said, navigated_to="/wiki/Kestrel/edit")
    assert page_session.page.url == f"{wiki}/wiki/Kestrel/edit", said
    (repair,) = repairs.done
    assert repair.how == "its identity (id and address; name now 'Diese Seite bearbeiten')"
    assert repair.kept and repairs.kept() == {"2": {"#wiki-edit": 'a[id="wiki-edit"]'}}
    assert repair.renamed  # the same control under another name: a run it heals stays routed
    assert "found by its identity (id and address; name now" in repair.said()

    await open_url(f"{wiki}/wiki/Kestrel")  # no id: its address and its place tell it
    with repairing() as repairs:
        said = await click(await find(HISTORY))
    assert page_session.page.url == f"{wiki}/wiki/Kestrel/history", said
    (repair,) = repairs.done
    assert repair.how.startswith("its identity (address") and "name now 'Versionen'" in repair.how
    assert repair.found == 'role=link[name="Versionen"s]'


async def test_two_candidates_that_score_alike_are_a_guess_and_not_acted_on(
    wiki: str, german: None, page_session: BrowserSession
) -> None:
    await open_url(f"{wiki}/twice/Kestrel")
    with repairing() as repairs, pytest.raises(SkillStale) as stale:
        await find(EDIT_NO_ID)
    said = str(stale.value)
    assert "that is a guess, so the step was not done" in said
    assert said.count("'Diese Seite bearbeiten'") == 2, said  # the guess and its runner-up
    assert "main > div:nth-of-type(1) > a" in said and "main > div:nth-of-type(2) > a" in said
    assert repairs.done == []
    assert page_session.page.url == f"{wiki}/twice/Kestrel"  # nothing was clicked
    match = await identity.best_match(page_session.page, EDIT_NO_ID)
    assert match is not None and match.guess and match.score < MARGIN * match.second


async def test_an_element_that_is_gone_is_stale_not_healed_to_another(
    wiki: str, german: None, page_session: BrowserSession
) -> None:
    await open_url(f"{wiki}/gone/Kestrel")
    with repairing() as repairs, pytest.raises(SkillStale) as stale:
        await find(EDIT)
    assert "no visible element matches #wiki-edit" in str(stale.value)
    assert "guess" not in str(stale.value)
    assert repairs.done == []
    assert await identity.best_match(page_session.page, EDIT) is None


def test_an_address_matches_by_its_pattern_with_the_values_that_vary_aside() -> None:
    varying = varying_values("http://wiki.test/wiki/Kestrel?page=2")
    assert address_similarity("/wiki/Start/edit", "/wiki/Start/edit", varying) == 1.0
    assert 0 < address_similarity("/wiki/Start/edit", "/wiki/Kestrel/edit", varying) < 1
    assert address_similarity("/issues/12?tab=notes", "/issues/345?tab=notes", set()) > 0
    assert address_similarity("/wiki/Start/edit", "/wiki/Kestrel/history", varying) == 0
    assert address_similarity("/wiki/Start/edit", "/wiki/Other/edit", varying) == 0
    assert address_similarity("/search?q=a", "/search?q=b&sort=1", varying) == 0


def test_the_margin_lets_one_medium_thing_decide_but_not_weak_ones_alone() -> None:
    shared = identity.WEIGHTS["address"] * identity.PATTERN + identity.WEIGHTS["tag"]
    assert shared >= MINIMUM
    assert shared + identity.WEIGHTS["heading"] >= MARGIN * shared
    weak = identity.WEIGHTS["type"] + identity.WEIGHTS["place"]
    assert shared + weak < MARGIN * shared
