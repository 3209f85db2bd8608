"""Validation of a skill whose fixed control was relabelled by another interface language,
on a wiki served on 127.0.0.1 in English or German: the recorded link to the example's
own edit page is still found by its address, so a replay of the example alone passes,
but the skill as written does nothing for any other page. Validation replays it with
the other page names the wiki listed at harvest (kept in its plan), says stale, keeps it
routed because a healing run finds the link again relabelled, and ``--reharvest`` writes
the version that names the link as it reads now, which works for every page."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser

from browser_agent.browser.session import browser_session
from browser_agent.planner.skill_call import run_skill
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import ByRoleName, ElementRecord, Param, PlannedStep
from browser_agent.plans.plan_data import plan_text, read_plan
from browser_agent.skills import finding
from browser_agent.skills.loader import source_hash
from browser_agent.skills.stored import load_skill
from browser_agent.store.db import open_store
from browser_agent.store.models import Skill
from browser_agent.store.skill_use import current_skills
from browser_agent.store.skills import add_version, skill_by_name, update_skill
from browser_agent.validate.validator import run_validation
from tests.skill_workspaces import expecting_stale, workspace_settings
from tests.stored_rows import opening, planned_skill

PAGES = ("Kestrel", "Osprey", "Heron")
EDIT = {"en": "Edit this page", "de": "Diese Seite bearbeiten"}
DELETE = {"en": "Delete this page", "de": "Diese Seite löschen"}


class _Wiki(BaseHTTPRequestHandler):
    """/wiki/ lists the pages; /wiki/<title> has the page's edit link at the top and the
    sidebar's own edit link below, both named alike, a link that deletes the page and a
    form "Remove" that deletes it by POST (answered with a link back to the pages);
    /wiki/<title>/edit is an editor, /wiki/<title>/delete deletes it and lists the rest."""

    lang = "en"
    pages: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        parts = [part for part in self.path.split("/") if part]
        edit = EDIT[self.lang]
        if parts[-1] == "delete" and parts[1] in self.pages:
            self.pages.remove(parts[1])
            parts = parts[:1]
        if len(parts) == 1:
            links = "".join(f'<li><a href="/wiki/{t}">{t}</a></li>' for t in self.pages)
            body = f"<title>Pages</title><h1>Pages</h1><ul>{links}</ul>"
        elif len(parts) == 2:
            body = (
                f'<title>{parts[1]}</title><main><div class="contextual"><a href="/wiki/'
                f'{parts[1]}/edit">{edit}</a></div><h1>{parts[1]}</h1><p>A page.</p></main>'
                f'<aside><h2>Sidebar</h2><a href="/wiki/sidebar/edit">{edit}</a></aside>'
                f'<a href="/wiki/{parts[1]}/delete">{DELETE[self.lang]}</a>'
                f'<form method="post" action="/wiki/{parts[1]}/delete"><button>Remove'
                "</button></form>"
            )
        else:
            body = f"<title>Editing {parts[1]}</title><h1>Editing {parts[1]}</h1>"
        self._send(body)

    def do_POST(self) -> None:  # noqa: N802
        parts = [part for part in self.path.split("/") if part]
        if parts[1] in self.pages:
            self.pages.remove(parts[1])
        self._send('<title>Deleted</title><h1>Deleted</h1><a href="/wiki/">Back to pages</a>')

    def _send(self, body: str) -> None:
        data = f'<!doctype html><html lang="{self.lang}">{body}</html>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def wiki() -> Iterator[str]:
    _Wiki.pages = list(PAGES)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Wiki)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    _Wiki.lang = "en"
    server.shutdown()
    server.server_close()


def wiki_skill(
    start: str, verb: str, listed: tuple[str, ...], *clicks: tuple[ElementRecord, str]
) -> Skill:
    """A skill as harvesting writes it from '<verb> the wiki page "Kestrel"' on the English
    wiki: the page's link by its name (a parameter), then each of ``clicks`` (an element
    by role and name, the address it went to); the wiki listed ``listed`` beside Kestrel."""
    title = Param("title", "the page's title", "Kestrel")
    page = ElementRecord('role=link[name="Kestrel"]', "link", "Kestrel", "a", "Kestrel",
                         {"href": "/wiki/Kestrel"})  # fmt: skip
    end = clicks[-1][1]
    steps = [
        opening(start),
        PlannedStep(
            "click",
            {"selector": ByRoleName("link", title)},
            {"selector": page},
            navigated_to="/wiki/Kestrel",
        ),  # fmt: skip
        *(
            PlannedStep("click", {"selector": r.selector}, {"selector": r}, navigated_to=to)
            for r, to in clicks
        ),
    ]
    skill = planned_skill(
        f"{verb}_wiki_page", f'{verb} the wiki page "{{title}}"', steps, params=[title],
        start_url=start, status="healthy", example_args=json.dumps({"title": "Kestrel"}),
        expected_end=end,
    )  # fmt: skip
    plan = read_plan(skill.plan)
    plan.command, plan.listed = f'{verb} the wiki page "Kestrel"', {"title": list(listed)}
    skill.plan, skill.source = plan_text(plan), generate_module(plan, skill.name)
    skill.source_hash = source_hash(skill.source)
    return skill


def edit_page_skill(start: str, listed: tuple[str, ...] = ("Osprey",)) -> Skill:
    """The edit skill: its second click the edit link by role and name, the first of the
    two so named."""
    edit = ElementRecord(
        'role=link[name="Edit this page"]', "link", "Edit this page", "a", "Edit this page",
        {"href": "/wiki/Kestrel/edit"}, "//a[normalize-space()='Edit this page']",
        {"heading": "Kestrel", "index": 0},
    )  # fmt: skip
    return wiki_skill(start, "edit", listed, (edit, "/wiki/Kestrel/edit"))


async def test_a_relabelled_link_found_only_for_the_example_is_stale_routed_and_renewed(
    wiki: str, browser: Browser, tmp_path: Path
) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    engine = open_store(settings)
    add_version(engine, edit_page_skill(f"{wiki}/wiki/"))
    assert read_plan(skill_by_name(engine, "edit_wiki_page").plan).listed == {"title": ["Osprey"]}

    report = await run_validation(settings, ["edit_wiki_page"], browser=browser)
    assert [c.verdict for c in report.checked] == ["healthy"]  # in English, on Osprey too

    _Wiki.lang = "de"
    report = await run_validation(settings, ["edit_wiki_page"], browser=browser)
    (checked,) = report.checked
    # the example alone passes (its edit link is found by its address), Osprey does not
    assert checked.verdict == "stale", checked
    assert "only with the demonstration's values: with title='Osprey'" in (checked.error or "")
    assert "stays routed until `validate --reharvest`" in (checked.error or "")
    stale = skill_by_name(engine, "edit_wiki_page")
    assert stale.status == "stale" and stale.routable  # a run heals it by what it is
    relabelled = 'role=link[name="Diese Seite bearbeiten"s]'  # not Osprey's own address
    assert json.loads(stale.healed) == {"3": {'role=link[name="Edit this page"]': relabelled}}

    report = await run_validation(settings, ["edit_wiki_page"], browser=browser, reharvest=True)
    (checked,) = report.checked
    assert checked.renewed is not None and checked.renewed.passed, checked
    (current,) = current_skills(engine)
    assert current.version == 2 and current.status == "healthy"
    step = read_plan(current.plan).steps[2].targets["selector"]
    assert (step.selector, step.name) == (relabelled, "Diese Seite bearbeiten")

    async with browser_session(settings, browser=browser) as active:  # as written, no healing
        await load_skill(current, settings.workspace)(title="Heron", start_url=f"{wiki}/wiki/")
        assert active.current_page().url == f"{wiki}/wiki/Heron/edit"


async def test_a_page_the_wiki_listed_at_harvest_and_since_deleted_refutes_nothing(
    wiki: str, browser: Browser, tmp_path: Path
) -> None:
    settings = workspace_settings(tmp_path / "workspace")
    engine = open_store(settings)
    add_version(engine, edit_page_skill(f"{wiki}/wiki/", listed=("Albatross",)))
    report = await run_validation(settings, ["edit_wiki_page"], browser=browser)
    assert [(c.verdict, c.error) for c in report.checked] == [("healthy", None)]


async def test_every_page_listed_at_harvest_is_tried_when_the_first_are_gone(
    wiki: str, browser: Browser, tmp_path: Path
) -> None:
    settings = expecting_stale(workspace_settings(tmp_path / "workspace"))  # Osprey's edit link
    engine = open_store(settings)
    listed = ("Albatross", "Petrel", "Osprey")  # two deleted since, the third still there
    add_version(engine, edit_page_skill(f"{wiki}/wiki/", listed=listed))
    _Wiki.lang = "de"
    report = await run_validation(settings, ["edit_wiki_page"], browser=browser)
    (checked,) = report.checked
    assert checked.verdict == "stale", checked
    assert "with title='Osprey'" in (checked.error or "")


async def test_a_run_waits_for_the_control_as_an_earlier_run_healed_it_too(
    wiki: str, browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relabelled link never shows under its recorded name: a routed run waits for the
    recorded selector or any healing stage, and the stages include what an earlier run
    healed the step to, so it does not wait out the action timeout at every run until the
    version naming the link is written (the wait itself is the real one, watched)."""
    asked: list[list[str]] = []  # the selectors each wait was for (no time is measured)
    real_wait = finding.wait_visible

    async def watched(page: Any, selectors: list[str], timeout: float) -> None:
        asked.append(list(selectors))
        await real_wait(page, selectors, timeout)

    monkeypatch.setattr(finding, "wait_visible", watched)
    settings = workspace_settings(tmp_path / "workspace")
    engine = open_store(settings)
    skill = add_version(engine, edit_page_skill(f"{wiki}/wiki/"))
    relabelled = 'role=link[name="Diese Seite bearbeiten"s]'
    healed = {"3": {'role=link[name="Edit this page"]': relabelled}}
    skill = update_skill(engine, skill.id, healed=json.dumps(healed))  # type: ignore[arg-type]
    _Wiki.lang = "de"
    async with browser_session(settings, browser=browser) as active:
        arguments = {"title": "Heron", "start_url": f"{wiki}/wiki/"}
        outcome = await run_skill(skill, load_skill(skill, settings.workspace), arguments)
        assert outcome.ok and active.current_page().url == f"{wiki}/wiki/Heron/edit", outcome
    (repair,) = outcome.repairs
    assert repair.renamed and repair.found == relabelled
    assert any(relabelled in selectors for selectors in asked), asked


async def test_a_removal_is_never_replayed_on_what_the_site_listed_beside_its_example(
    wiki: str, browser: Browser, tmp_path: Path
) -> None:
    """Validation replays a removal on Osprey, which the wiki listed beside its example,
    and on the example's own page (harvested as removed, here still there), each up to its
    last step, whose link it finds and does not follow: nothing is deleted."""
    delete = ElementRecord('role=link[name="Delete this page"]', "link", "Delete this page",
                           "a", "Delete this page", {"href": "/wiki/Kestrel/delete"})  # fmt: skip
    skill = wiki_skill(f"{wiki}/wiki/", "delete", ("Osprey",), (delete, "/wiki/Kestrel/delete"))
    settings = workspace_settings(tmp_path / "workspace")
    add_version(open_store(settings), skill)
    report = await run_validation(settings, ["delete_wiki_page"], browser=browser)
    assert [c.verdict for c in report.checked] == ["healthy"], report.checked
    assert "Osprey" in _Wiki.pages and "Kestrel" in _Wiki.pages, report.checked
