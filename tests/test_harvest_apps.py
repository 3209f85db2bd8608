"""Harvesting flows of real web applications: the application's own links are fixed steps,
values inside an opened address are parameters, one value of the command is one parameter,
parameters are named from what their fields are; and, on Trac (a real application served on
127.0.0.1), a task shown once by a person becomes a skill a fresh instance is routed to with
no model, done by Trac's own account of it.

The unit logs are written the way this project's planner and recorder write them (see
tests/test_harvest.py)."""

from __future__ import annotations

import ast
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from urllib.parse import quote, urljoin

import pytest
from playwright.async_api import Browser

from browser_agent.harvest.harvester import harvest
from browser_agent.harvest.logs import parse_messages
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import run_command
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import BuiltUrl, ByRoleName
from browser_agent.record.save import save_recording
from browser_agent.record.session import record_session
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from scripts.apps import Running, Task, load
from tests.test_harvest import shop_log, tool_round

SITE = "http://tracker.test"
NAV = [
    '[26] link "Wiki"',
    '[28] link "Timeline"',
    '[32] link "View Tickets"',
    '[34] link "New Ticket"',
    '[38] link "Admin"',
]


def dom(call_id: str, path: str, *lines: str) -> list[dict]:
    """A get_dom round of the page at ``path`` showing ``lines``."""
    text = "\n".join([f'Page "Tracker" at {SITE}{path}', *lines])
    return tool_round(call_id, "get_dom", {"content_type": "all_fields"}, text)


def opened(call_id: str, path: str) -> list[dict]:
    return tool_round(call_id, "open_url", {"url": SITE + path}, f"Page loaded: {SITE}{path}.")


def click(call_id: str, mmid: int, tag: str, to: str = "") -> list[dict]:
    after = f" Page navigated to {SITE}{to}." if to else ""
    return tool_round(call_id, "click", {"selector": f"[mmid='{mmid}']"}, f"Clicked {tag}.{after}")


def typed(call_id: str, mmid: int, text: str, tag: str, enter: bool = False) -> list[dict]:
    arguments = {"selector": f"[mmid='{mmid}']", "text": text, "press_enter": enter}
    return tool_round(call_id, "enter_text", arguments, f"Text {text!r} entered in {tag}.")


def plan_of(command: str, *rounds: list[dict]):  # type: ignore[no-untyped-def]
    return plan_skill(parse_messages(shop_log(command, opened("c0", "/"), *rounds), "log.json"))


def new_ticket(command: str) -> list[list[dict]]:
    """A person opens New Ticket from the navigation, fills the form and creates it."""
    return [
        dom("c1", "/", *NAV, '[42] link "WikiStart"'),
        click("c2", 34, '<a href="/newticket">New Ticket</a>', "/newticket"),
        dom(
            "c3",
            "/newticket",
            *NAV,
            '[59] textbox "Summary:" id=field-summary',
            '[81] textbox "Description: You may use WikiFormatting here." id=field-description',
            '[136] button "Create ticket" type=submit',
        ),
        typed("c4", 59, "Harbor sync stalls", '<input id="field-summary" name="field_summary">'),
        typed("c5", 81, "The queue.", '<textarea id="field-description">'),
        click("c6", 136, '<input name="submit" type="submit" value="Create ticket">', "/ticket/9"),
    ]


def test_a_link_of_the_applications_own_navigation_is_a_fixed_step() -> None:
    """ "New Ticket" is shown on every page of the run, once, and holds no value of the
    command: a fixed part of the UI, kept as a literal, not a choice among page content."""
    command = 'create a ticket titled "Harbor sync stalls" with the description "The queue."'
    plan = plan_of(command, *new_ticket(command))
    assert plan.template == (
        'create a ticket titled "{summary}" with the description "{description}"'
    )
    assert plan.complete
    clicks = [s for s in plan.steps if s.primitive == "click"]
    assert clicks[0].arguments["selector"] == 'role=link[name="New Ticket"]'
    code = generate_module(plan, "create_ticket")
    # The fixed link's page is checked; the new ticket's number is the app's, not checked.
    assert "navigated_to='/newticket'" in code and "'/ticket/9'" not in code
    ast.parse(code)


def test_a_link_shown_on_one_page_only_is_kept_as_a_speculated_fixed_control() -> None:
    """The same flow where the page's only "New Ticket" was seen on that page alone: the log
    cannot tell a fixed control from a result, so the step is kept with that reading named,
    and the verifying replay on fresh values decides (see test_speculated_readings)."""
    rounds = [
        dom("c1", "/", '[34] link "New Ticket"', '[35] link "Old Ticket"'),
        click("c2", 34, '<a href="/newticket">New Ticket</a>', "/newticket"),
    ]
    plan = plan_of("create a ticket", *rounds)
    clicks = [s for s in plan.steps if s.primitive == "click"]
    assert clicks[0].arguments["selector"] == 'role=link[name="New Ticket"]'
    assert clicks[0].speculated == "the link 'New Ticket' read as a fixed control of the site"


def test_a_result_named_like_the_search_term_is_a_judgement_even_on_every_page() -> None:
    """A link holding the word searched for was picked by matching it: still refused."""
    results = ['[51] link "Trail Blazer 2"', '[52] link "Trail Runner"']
    plan = plan_of(
        "search for trail shoes and open the best one",
        dom("c1", "/", '[7] searchbox "Search" id=q'),
        typed("c2", 7, "trail shoes", '<input id="q" type="search">', enter=True),
        dom("c3", "/search", *results),
        click("c4", 51, '<a href="/p/tb2">Trail Blazer 2</a>', "/p/tb2"),
        dom("c5", "/p/tb2", *results),
    )
    assert "'Trail Blazer 2' was a choice among page content" in plan.ended_because


def test_an_in_page_control_with_a_stable_id_is_a_fixed_step() -> None:
    """ "Modify Ticket" opens the ticket's own form on the same page (``href="#no3"``)."""
    plan = plan_of(
        'add the comment "works here" to ticket #8',
        opened("c1", "/ticket/8"),
        dom(
            "c2",
            "/ticket/8",
            '[100] link "Attachments (0)" id=no1',
            '[105] link "Modify Ticket" id=no3',
        ),
        click("c3", 105, '<a id="no3" href="#no3">Modify Ticket</a>', "/ticket/8#no3"),
        dom("c4", "/ticket/8#no3", '[123] textbox "You may use WikiFormatting here." id=comment'),
        typed("c5", 123, "works here", '<textarea id="comment" name="comment">'),
    )
    assert plan.complete, plan.ended_because
    assert [s.primitive for s in plan.steps] == ["open_url", "open_url", "click", "enter_text"]


def test_a_value_inside_an_opened_address_is_a_parameter_the_address_is_built_from() -> None:
    """ "ticket #8" opened /ticket/8: the number is a parameter, URL-quoted into the address
    joined to the start page; the comment field's help text does not name its parameter."""
    plan = plan_of(
        'add the comment "works here" to ticket #8',
        opened("c1", "/ticket/8"),
        dom("c2", "/ticket/8", '[123] textbox "You may use WikiFormatting here." id=comment'),
        typed("c3", 123, "works here", '<textarea id="comment" name="comment">'),
        dom("c4", "/ticket/8", '[132] button "Submit changes"'),
        click("c5", 132, '<input name="submit" type="submit" value="Submit changes">', "/ticket/8"),
    )
    assert plan.template == 'add the comment "{comment}" to ticket #{ticket}'
    assert isinstance(plan.steps[1].arguments["url"], BuiltUrl)
    code = generate_module(plan, "add_comment")
    built = "urljoin(start_url, '/ticket/' + quote(str(ticket), safe=''))"
    assert f"await open_url(url={built})" in code
    assert "from urllib.parse import quote, urljoin" in code
    assert "'/ticket/8'" not in code  # the submit's page is the ticket's, whichever it is
    # The value is URL-quoted into the address: no slash or question mark of it moves it.
    address = {"quote": quote, "urljoin": urljoin, "start_url": "http://t.test/", "ticket": "a b/?"}
    assert eval(built, address) == "http://t.test/ticket/a%20b%2F%3F"


def test_a_wiki_page_name_in_the_address_is_named_by_the_command_words_before_it() -> None:
    plan = plan_of(
        'create a wiki page named RavenCopper with the text "Runbook."',
        opened("c1", "/wiki/RavenCopper"),
        dom("c2", "/wiki/RavenCopper", '[57] button "Create this page"'),
        click(
            "c3",
            57,
            '<input type="submit" value="Create this page">',
            "/wiki/RavenCopper?action=edit",
        ),
        dom("c4", "/wiki/RavenCopper", "[67] textbox id=text name=text"),
        typed("c5", 67, "Runbook.", '<textarea id="text" name="text">'),
    )
    assert plan.template == 'create a wiki page named {wiki_page} with the text "{text}"'
    assert "navigated_to" not in generate_module(plan, "create_wiki_page")


def test_one_value_typed_and_then_clicked_is_one_parameter() -> None:
    """Typed X in the search box, then clicked the result named X: one argument."""
    plan = plan_of(
        "open the page Velvet",
        dom("c1", "/", '[7] searchbox "Search" id=q'),
        typed("c2", 7, "Velvet", '<input id="q" type="search">', enter=True),
        dom("c3", "/search", '[51] link "Velvet"', '[52] link "Velvet Tundra"'),
        click("c4", 51, '<a href="/wiki/Velvet">Velvet</a>', "/wiki/Velvet"),
    )
    assert [p.name for p in plan.params] == ["page"]
    assert plan.template == "open the page {page}"
    picked = plan.steps[-1].arguments["selector"]
    assert isinstance(picked, ByRoleName) and picked.param is plan.params[0]


@pytest.mark.parametrize(
    ("line", "tag", "command", "name"),
    [
        ('[5] textbox "Username (required)" id=user_login', "<input id=\"user_login\">",
         'add the user "kim"', "username"),
        ('[5] textbox "Description: You may use WikiFormatting here." id=field-d',
         "<textarea>", 'describe it as "kim"', "description"),
        ('[5] textbox "You may use WikiFormatting here." id=comment', '<textarea id="comment">',
         'say "kim"', "comment"),
        ('[5] textbox name="fields[multi_edit][0][2]"', '<input name="fields[multi_edit][0][2]">',
         'insert a row with the city "kim"', "city"),
        # a label that says what to do with the field names it by what it holds
        ('[5] textbox "Add title"', '<h1 contenteditable="true" aria-label="Add title">',
         'publish a post titled "kim"', "title"),
        ('[5] textbox "Enter your email address" id=f2', '<input id="f2">',
         'sign up as "kim"', "email_address"),
    ],
)  # fmt: skip
def test_parameter_names_are_short_and_say_what_the_value_is(
    line: str, tag: str, command: str, name: str
) -> None:
    plan = plan_of(command, dom("c1", "/", line), typed("c2", 5, "kim", tag))
    assert [p.name for p in plan.params] == [name]


# --- on Trac --------------------------------------------------------------------------

TRAC = load("trac")
TASKS = {task.name: task for task in TRAC.tasks}


@pytest.fixture(scope="module")
def trac() -> Iterator[Running]:
    with TRAC.start() as app:
        yield app


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def shown(app: Running, task: Task, values: dict, settings: Settings, browser: Browser):  # type: ignore[no-untyped-def]
    """A person (Playwright) shows the task once through the recorder; the saved run."""
    context = await browser.new_context(storage_state=str(app.storage_state))
    try:
        page = await context.new_page()
        await page.goto(app.url + task.start)
        async with record_session(context) as recording:
            await task.person(page, app, values)
            await page.wait_for_load_state()
        final = page.url
    finally:
        await context.close()
    assert task.check(app, values, final), "the demonstration did not do the task"
    return save_recording(recording, task.command(values), settings, open_store(settings))


def on_trac(settings: Settings, trac: Running) -> Settings:
    """The admin's kept login, and deadlines for a real application on a busy machine."""
    return settings.with_overrides(
        storage_state=trac.storage_state, action_timeout_ms=10_000, navigation_timeout_ms=30_000
    )


def missing_once(settings: Settings) -> Settings:
    """``settings`` where one find is meant to fail (an element the page no longer shows):
    Trac's pages come whole from its server, so the elements that are there are found at
    once and 3 s is enough."""
    return settings.with_overrides(action_timeout_ms=3_000)


async def routed_with_no_model(  # type: ignore[no-untyped-def]
    task: Task, values: dict, trac: Running, settings: Settings, browser: Browser, engine
) -> None:
    """``task`` on ``values`` routed to its skill with no model, done by Trac's account."""
    routed = await run_command(
        task.command(values), FunctionClient(no_llm), settings, start_url=trac.url + task.start,
        browser=browser, engine=engine,
    )  # fmt: skip
    assert routed.status == "succeeded" and routed.llm_calls == 0, routed.answer
    assert task.check(trac, values, routed.final_url), (routed.final_url, routed.answer)


@pytest.mark.parametrize(
    "name",
    [
        "new-ticket",
        "comment",
        "assign",
        "wiki-page",  # verified with a fresh page name: the demonstration's page exists
    ],
)
async def test_a_task_shown_once_routes_a_fresh_instance_with_no_model(
    name: str, trac: Running, settings: Settings, browser: Browser
) -> None:
    task, rng = TASKS[name], random.Random(name)
    settings = on_trac(settings, trac)
    engine = open_store(settings)
    first = task.generate(rng, trac)
    saved = await shown(trac, task, first, settings, browser)
    (made,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert made.skill is not None, made.error or made.reason
    assert made.skill.complete and not made.dropped
    fresh = task.generate(rng, trac)
    while fresh == first:
        fresh = task.generate(rng, trac)
    await routed_with_no_model(task, fresh, trac, settings, browser, engine)


async def test_a_skill_that_removes_a_named_thing_is_verified_on_one_made_for_it(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Removing a milestone, shown once, leaves none of that name to replay on; the site's
    healthy add-milestone skill makes one with a fresh name, the removal is replayed on
    it (Trac has neither afterwards), and a fresh removal is routed with no model."""
    settings = on_trac(settings, trac)
    engine, rng = open_store(settings), random.Random("remove-milestone")
    add, remove = TASKS["milestone"], TASKS["remove-milestone"]
    saved = await shown(trac, add, add.generate(rng, trac), settings, browser)
    (maker,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert maker.verified and maker.skill is not None, maker.verify_error
    before = {name for (name,) in trac.state()["milestone"]}
    first = remove.generate(rng, trac)
    saved = await shown(trac, remove, first, settings, browser)
    # its first replay finds no milestone of the name it is given; one is made for it
    (made,) = await harvest([Path(saved.log_path)], missing_once(settings), engine, browser=browser)
    assert made.verified, made.verify_error
    assert made.verified_on == maker.skill.name
    after = {name for (name,) in trac.state()["milestone"]}
    made_names = after - before  # the maker's own verification and the one made to remove
    assert first["name"] in before and first["name"] not in after
    assert not any(name.startswith(first["name"]) for name in after), after
    assert all(not name.startswith("Sprint") for name in made_names), made_names
    fresh = remove.generate(rng, trac)
    await routed_with_no_model(remove, fresh, trac, settings, browser, engine)


async def test_a_button_relabelled_by_another_language_is_done_by_the_address_it_went_to(
    trac: Running, settings: Settings, browser: Browser
) -> None:
    """Trac's "Create this page" (no id, no name) sends a form by GET; in German it reads
    otherwise. The wiki-page skill opens the address the button went to, built from the
    fresh page name, with no model, and Trac holds the page with its text."""
    task, rng = TASKS["wiki-page"], random.Random("wiki-page in German")
    settings = on_trac(settings, trac)
    engine = open_store(settings)
    saved = await shown(trac, task, task.generate(rng, trac), settings, browser)
    (made,) = await harvest([Path(saved.log_path)], settings, engine, browser=browser)
    assert made.verified and made.skill is not None, made.verify_error
    assert "async with by_address(" in made.skill.source
    TRAC.new_look(trac)
    german = missing_once(settings)  # the English button is looked for, and not found
    try:
        await routed_with_no_model(task, task.generate(rng, trac), trac, german, browser, engine)
        # the skill is stale now, at the step the address does: still routed
        await routed_with_no_model(task, task.generate(rng, trac), trac, german, browser, engine)
    finally:
        with closing(sqlite3.connect(trac.home / "env/db/trac.db", timeout=30)) as db, db:
            db.execute("DELETE FROM session_attribute WHERE name = 'language'")


def test_the_kind_of_a_value_is_read_from_the_words_before_it() -> None:
    """What tells a maker for a removal: the words before each value, less articles and
    naming words, since the verb or the value before."""
    from browser_agent.skills.made_state import kinds

    assert kinds("drop the database {name}") == {"name": {"database"}}
    assert kinds("create a database named {name}") == {"name": {"database"}}
    assert kinds("add a user account {user} with the password {password}") == {
        "user": {"user", "account"},
        "password": {"password"},
    }


def test_a_mark_before_a_parameter_in_the_template_is_not_part_of_the_value() -> None:
    """ "ticket #{ticket}" takes 12 from "ticket #12"; a "#" the template does not put
    there stays in the value."""
    from browser_agent.planner.templates import Command, match_template, parse_template

    ticket = parse_template('add the comment "{comment}" to ticket #{ticket}')
    found = match_template(Command.parse('add the comment "a b" to ticket #12'), ticket)
    assert found is not None and found.values["ticket"].value == "12"
    tag = match_template(Command.parse("search for #tag"), parse_template("search for {q}"))
    assert tag is not None and tag.values["q"].value == "#tag"


GO_FORMS = """
<form><input id="db-name" name="db"><input type="submit" value="Go"></form>
<form><input id="sql" name="sql"><input type="submit" value="Go"></form>
<form><select id="charset"><option>utf8</option></select><input type="submit" value="Go"></form>
"""


async def test_a_button_the_page_shows_several_times_is_found_in_the_form_it_submits(
    browser: Browser,
) -> None:
    """Three "Go" buttons: the one clicked submits the form of the field just filled; the
    skill finds it there (kept in the plan), not by its place in page order."""
    plan = plan_of(
        'create the database "archive"',
        dom(
            "c1",
            "/server",
            "[4] textbox id=db-name name=db",
            '[5] button "Go" type=submit',
            "[8] textbox id=sql name=sql",
            '[9] button "Go" type=submit',
            '[12] button "Go" type=submit',
        ),
        typed("c2", 4, "archive", '<input id="db-name" name="db">'),
        click("c3", 5, '<input type="submit" value="Go">', "/server?db=archive"),
    )
    go = plan.steps[-1].targets["selector"]
    assert go.selector == 'form:has(#db-name) >> role=button[name="Go"]'
    assert go.context["form_of"] == "#db-name"
    assert "form:has(#db-name) >> " in generate_module(plan, "create_database")
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.set_content(GO_FORMS)
        assert await page.locator('role=button[name="Go"]').count() == 3
        assert await page.locator(go.selector).count() == 1
        assert await page.locator(go.selector).evaluate(
            "b => b.form.querySelector('#db-name') !== null"
        )
    finally:
        await context.close()


def test_a_value_an_article_opens_is_named_by_the_kind_after_it() -> None:
    """ "… with count 9 to the sightings table of the field database": the table is named
    by "table" after it, not by "count", which names the value before; the database by
    "database", not by the table's words."""
    plan = plan_of(
        "add a row with count 9 to the sightings table of the field database",
        opened("c1", "/index.php?db=field&table=sightings"),
        dom("c2", "/index.php?db=field&table=sightings", "[5] textbox id=f2"),
        typed("c3", 5, "9", '<input id="f2">'),
    )
    assert (
        plan.template
        == "add a row with count {count} to the {table} table of the {database} database"
    )
