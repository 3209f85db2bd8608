"""The embedded planner in a site's administration, where a first page holds forms and
controls of other kinds: a thing named without quotes ("a user kit42") is made with its
fields through the link where its kind is kept, never through a panel's form or a bare
"New" that makes another kind, nor a fly-out link no one sees; a setting ("the site
title") is found on the site's settings and saved. The same readings on Trac (a second
application, its own preferences). Success is the site's own state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from browser_agent.harvest.harvester import harvest
from browser_agent.llm.offline import OfflinePlanner
from browser_agent.llm.offline.command import make_plan
from browser_agent.llm.offline.form_tasks import Control, Save, Setting, Write
from browser_agent.llm.offline.tasks import Reach
from browser_agent.llm.offline.words import words
from browser_agent.llm.types import FunctionClient, LLMReply
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from tests.admin_site import AdminSite, User
from tests.offline_runs import run, tasks_of


@pytest.fixture
def admin() -> Iterator[AdminSite]:
    with AdminSite() as site:
        yield site


def test_a_thing_named_without_quotes_is_made_with_its_fields() -> None:
    control, name, email, role, save = tasks_of(
        "add a user kit42 with the email kit42@example.org and the role editor"
    )
    assert isinstance(control, Control) and (control.noun, control.target) == ("user", "kit42")
    assert (
        isinstance(name, Write)
        and name.value == "kit42"
        and name.keys[:2]
        == (
            "user name",
            "username",
        )
    )
    assert [(w.label, w.value) for w in (email, role)] == [
        ("email", "kit42@example.org"),
        ("role", "editor"),
    ]
    assert isinstance(save, Save)
    # a word that reads as no name is not one: "a blue widget" names nothing to make
    assert make_plan("add a blue widget", "http://site.test/").problem
    # a kind's plural meets it where its things are kept ("Categories" for a category)
    assert words("Categories") == words("category") and words("keys") == words("key")


@pytest.mark.parametrize(
    ("command", "reach", "label", "value"),
    [
        ('change the site title to "Marsh Log"', None, "site title", "Marsh Log"),
        ("set my email address to ada@example.org", None, "email address", "ada@example.org"),
        ('set the comment of the sightings table to "Counted twice"', "sightings table",
         "comment", "Counted twice"),
    ],
)  # fmt: skip
def test_a_setting_is_found_then_written_then_saved(
    command: str, reach: str | None, label: str, value: str
) -> None:
    tasks = tasks_of(command)
    if reach is not None:
        first = tasks.pop(0)
        assert isinstance(first, Reach) and first.phrase == reach
    setting, write, save = tasks
    assert isinstance(setting, Setting) and setting.keys == (label,)
    assert isinstance(write, Write) and (write.label, write.value) == (label, value)
    assert isinstance(save, Save) and save.verb == "edit"


async def test_a_user_is_added_where_users_are_kept_not_in_a_panel_or_by_a_bare_new(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        "add a user kit42 with the email kit42@example.org and the role editor",
        settings,
        browser,
        f"{admin.url}/admin/",
    )
    assert result.status == "succeeded", result.answer
    assert User("kit42", "kit42@example.org", "editor") in admin.users
    assert admin.drafts == []  # the Quick Draft panel's "Title" was never the user's name


async def test_a_kinds_name_field_is_found_by_any_word_of_the_kind_and_a_box_takes_a_value(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """ "a user account kit44": its name goes in "Username" (the kind's first word; no
    "Account name" here), never "First Name"; the website in the "Website" box, not the
    scheme drop-down of the same label, which offers no such value."""
    result = await run(
        "add a user account kit44 with the email kit44@example.org and the website "
        "kit44.example.org",
        settings,
        browser,
        f"{admin.url}/admin/user-new",
    )
    assert result.status == "succeeded", result.answer
    assert admin.users[-1] == User(
        "kit44", "kit44@example.org", "subscriber", "https://kit44.example.org"
    )


async def test_a_setting_is_saved_on_the_sites_settings_not_in_a_panels_title(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'change the site title to "Marsh Log"', settings, browser, f"{admin.url}/admin/"
    )
    assert result.status == "succeeded", result.answer
    assert admin.settings["title"] == "Marsh Log"
    assert admin.drafts == []


async def test_a_setting_no_page_holds_ends_failed_saying_what_was_sought(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'change the time zone to "UTC"', settings, browser, f"{admin.url}/admin/users"
    )
    assert result.status == "failed"
    assert "time zone" in result.answer and "Settings" in result.answer
    assert admin.settings == {"title": "Field Notes", "tagline": "Counts by the marsh"}


async def test_a_kind_the_site_offers_no_way_to_make_is_not_made_as_another_kind(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """No control makes a category here: "Add a new page" makes a page, "New" a post."""
    result = await run('add the category "Marsh Birds"', settings, browser, f"{admin.url}/admin/")
    assert result.status == "failed", result.answer
    assert "category" in result.answer and "post-new" not in (result.final_url or "")
    assert admin.drafts == []


async def test_a_thing_no_link_names_is_found_where_its_kind_is_kept_then_removed(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """The first page neither links to the user nor has a search: their kind's list does."""
    admin.users.append(User("bob7", "bob7@example.org", "author"))
    result = await run("delete the user bob7", settings, browser, f"{admin.url}/admin/")
    assert result.status == "succeeded", result.answer
    assert [u.login for u in admin.users] == ["admin"]


async def test_a_removal_its_page_has_no_control_for_is_done_in_the_things_own_options(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """ "erase the page …" from the list of pages: the page's own page has no control to
    erase it, its "Options" (after its heading, not the site menu's "Settings" above) have
    "Erase this page", the command's own verb (nothing here says Delete or Remove)."""
    admin.pages.update({"Heron counts": "Forty at dawn.", "Tern counts": "Six."})
    start = f"{admin.url}/admin/pages"
    result = await run('erase the page "Heron counts"', settings, browser, start)
    assert result.status == "succeeded", result.answer
    assert list(admin.pages) == ["Tern counts"]
    assert admin.settings["title"] == "Field Notes"


async def test_a_form_in_parts_is_taken_to_its_next_part_for_the_fields_left(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """The new page's form asks for its title, then, after "Next", for its content."""
    result = await run(
        'create a page titled "Marsh walk" with the text "Ten herons."',
        settings, browser, f"{admin.url}/admin/pages",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert admin.pages == {"Marsh walk": "Ten herons."}


async def test_a_link_further_down_than_the_window_shows_is_looked_for_below(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """A long list cut by the observation's size: the planner looks at the next windows."""
    admin.users += [User(f"kit{n}", f"kit{n}@example.org", "author") for n in range(60)]
    small = settings.with_overrides(dom_budget_chars=2_000)
    result = await run("delete the user kit57", small, browser, f"{admin.url}/admin/users")
    assert result.status == "succeeded", result.answer
    assert "kit57" not in [u.login for u in admin.users] and len(admin.users) == 60


def no_llm(messages: list[dict], tools: list[dict]) -> LLMReply:
    raise AssertionError("the model was asked although a skill should have done the work")


async def test_a_value_the_form_already_shows_is_chosen_and_learnt_as_a_parameter(
    admin: AdminSite, settings: Settings, browser: Browser
) -> None:
    """The role the command names is the form's default: chosen all the same, so the skill
    learnt from the run makes an editor when asked for one, with no model."""
    engine = open_store(settings)
    first = await run_command(
        "add a user kit1 with the email kit1@example.org and the role subscriber",
        OfflinePlanner(), settings, start_url=f"{admin.url}/admin/", browser=browser,
        engine=engine,
    )  # fmt: skip
    assert first.status == "succeeded", first.answer
    (made,) = await harvest([Path(first.log_path)], settings, engine, browser=browser)
    assert made.skill is not None and made.verified, made.error or made.verify_error
    routed = await run_command(
        "add a user kit2 with the email kit2@example.org and the role editor",
        FunctionClient(no_llm), settings, start_url=f"{admin.url}/admin/", browser=browser,
        engine=engine,
    )  # fmt: skip
    assert (routed.status, routed.llm_calls) == ("succeeded", 0), routed.answer
    assert User("kit2", "kit2@example.org", "editor") in admin.users
