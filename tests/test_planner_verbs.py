"""The embedded planner does everyday application work on sites it was never told about:
create a thing with its fields, edit it (add to its text, or set a field), remove it (with
the site's confirmation), through the site's own controls found by role and name. Two
small sites of different shapes on 127.0.0.1 (a wiki, an issue tracker); success is the
site's own state. A control that is not there ends the run failed, saying which verb,
what was looked for and on which page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Browser

from browser_agent.llm.offline.form_tasks import Confirm, Control, Save
from browser_agent.llm.offline.tasks import Reach
from browser_agent.settings import Settings
from tests.offline_runs import run, tasks_of
from tests.tracker_site import TrackerSite
from tests.wiki_site import WikiSite


@pytest.fixture
def wiki() -> Iterator[WikiSite]:
    with WikiSite() as site:
        yield site


@pytest.fixture
def tracker() -> Iterator[TrackerSite]:
    with TrackerSite() as site:
        yield site


# ---- reading ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "title", "fields"),
    [
        ('create a page titled "Release notes" with the text "Out now."', "Release notes",
         [("text", "Out now.")]),
        ("publish a post called Hello world with the body Hi there", "Hello world",
         [("body", "Hi there")]),
        ('new issue named "Crash" with the description "Boom" and priority High', "Crash",
         [("description", "Boom"), ("priority", "High")]),
        ('add an issue "Crash on start" with "It crashes."', "Crash on start",
         [("text", "It crashes.")]),
    ],
)  # fmt: skip
def test_create_is_the_sites_control_then_the_fields_then_its_button(
    command: str, title: str, fields: list[tuple[str, str]]
) -> None:
    control, *writes, save = tasks_of(command)
    assert isinstance(control, Control) and control.verb == "create"
    assert [(w.label, w.value) for w in writes] == [("title", title), *fields]
    assert isinstance(save, Save) and save.target == title


@pytest.mark.parametrize(
    ("command", "target", "label", "value", "append"),
    [
        ('edit the page "Gamma" to add the text "Meet at noon."', "Gamma", "text",
         "Meet at noon.", True),
        ('add the text "Meet at noon." to the page "Gamma"', "Gamma", "text", "Meet at noon.",
         True),
        ('update the issue "Typo" to set the priority to "High"', "Typo", "priority", "High",
         False),
        ('change the page "Gamma" to say "All new."', "Gamma", "text", "All new.", False),
        ('rename the page "Gamma" to "Gamma team"', "Gamma", "title", "Gamma team", False),
    ],
)  # fmt: skip
def test_edit_reaches_the_thing_then_its_edit_control(
    command: str, target: str, label: str, value: str, append: bool
) -> None:
    reach, control, write, save = tasks_of(command)
    assert isinstance(reach, Reach) and reach.phrase == target
    assert (control.verb, control.target) == ("edit", target)
    assert (write.label, write.value, write.append) == (label, value, append)
    assert (save.verb, save.target) == ("edit", target)


@pytest.mark.parametrize(
    ("command", "target", "word"),
    [
        ('delete the page "Delta"', "Delta", "delete"),
        ("remove the page Delta", "Delta", "remove"),
        ("archive issue Typo in footer", "Typo in footer", "archive"),
        ('delete the issue "Typo" and confirm', "Typo", "delete"),
    ],
)
def test_remove_reaches_the_thing_then_its_control_then_confirms(
    command: str, target: str, word: str
) -> None:
    reach, control, confirm = tasks_of(command)
    assert isinstance(reach, Reach) and reach.phrase == target
    assert (control.verb, control.target, control.word) == ("remove", target, word)
    assert isinstance(confirm, Confirm)


def test_its_view_is_the_view_of_the_thing_named_before() -> None:
    *_, reach, press = tasks_of('open the page "Delta" and view its history')
    assert reach == Reach("Delta") and "history" in press.phrases


def test_pronouns_and_the_shop_still_read_as_before() -> None:
    *_, control, confirm = tasks_of("open the page Gamma and delete it")
    assert control.target == confirm.target == "page Gamma"
    assert not any(isinstance(t, Control) for t in tasks_of("add Trail Blazer 2 to the cart"))


# ---- the wiki --------------------------------------------------------------------------


async def test_a_page_is_created_with_its_text(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'create a page titled "Release notes" with the text "Version 2 is out."',
        settings, browser, f"{wiki.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert wiki.pages["Release notes"] == "Version 2 is out."
    assert result.final_url == f"{wiki.url}/wiki/Release%20notes"


async def test_text_is_added_to_a_page_through_its_edit_link(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'edit the page "Gamma" to add the text "Meet on Friday."', settings, browser,
        f"{wiki.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert wiki.pages["Gamma"] == "Say hello to the gamma team. Meet on Friday."


async def test_a_page_is_removed_after_the_sites_own_confirmation(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    result = await run('delete the page "Delta"', settings, browser, f"{wiki.url}/")
    assert result.status == "succeeded", result.answer
    assert "Delta" not in wiki.pages and "Gamma" in wiki.pages


@pytest.mark.parametrize(
    "command",
    ['view "Delta"\'s history', 'view the history of the page "Delta"'],
)
async def test_a_pages_history_is_opened_through_its_own_link(
    wiki: WikiSite, settings: Settings, browser: Browser, command: str
) -> None:
    result = await run(command, settings, browser, f"{wiki.url}/")
    assert result.status == "succeeded", result.answer
    assert result.final_url == f"{wiki.url}/wiki/Delta?action=history"


async def test_a_control_the_site_does_not_have_ends_failed_naming_what_was_sought(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    result = await run('archive the page "Gamma"', settings, browser, f"{wiki.url}/")
    assert result.status == "failed"
    assert (
        f'No control to archive the page "Gamma" on {wiki.url}/wiki/Gamma: looked for links '
        "or buttons named Archive; show the way once with `browser-agent record`"
    ) in (result.answer or "")
    assert "Gamma" in wiki.pages


# ---- the tracker -----------------------------------------------------------------------


async def test_an_issue_is_created_with_its_description_and_priority(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'add a new issue titled "Crash on start" with the description "It crashes when '
        'opened." and priority High',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    issue = tracker.by_subject("Crash on start")
    assert issue is not None, tracker.issues
    assert (issue.description, issue.priority) == ("It crashes when opened.", "High")


async def test_an_issue_is_edited_in_its_editor_box_and_drop_down(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'edit the issue "Typo in footer" to add the text "Seen on every page."',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    issue = tracker.by_subject("Typo in footer")
    assert issue is not None and issue.description == "It says Copyrite. Seen on every page."

    result = await run(
        'update the issue "Typo in footer" to set the priority to "High"',
        settings, browser, f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert tracker.by_subject("Typo in footer").priority == "High"  # type: ignore[union-attr]


async def test_an_issue_is_deleted_when_the_command_confirms_the_sites_dialog(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run(
        'delete the issue "Typo in footer" and confirm', settings, browser, f"{tracker.url}/"
    )
    assert result.status == "succeeded", result.answer
    assert tracker.by_subject("Typo in footer") is None
    assert len(tracker.issues) == 1


async def test_a_dialog_the_command_did_not_confirm_keeps_the_issue_and_says_so(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run('delete the issue "Typo in footer"', settings, browser, f"{tracker.url}/")
    assert result.status == "failed"
    assert "'Delete this issue for good?' in a dialog, which was dismissed" in (result.answer or "")
    assert tracker.by_subject("Typo in footer") is not None


async def test_creating_where_the_site_offers_no_way_names_the_verb_and_the_page(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    start = f"{tracker.url}/issues/1"
    result = await run('create a page titled "Notes" with the text "Hi"', settings, browser, start)
    assert result.status == "failed"
    assert (
        f"No control to create a page on {start}: looked for links or buttons named Create, "
        "New, Add, +"
    ) in (result.answer or "")
    assert len(tracker.issues) == 2


async def test_a_long_text_is_added_to_in_an_editor_box_read_whole_first(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    long = "The footer says Copyrite on every page of the site. " * 3 + "Seen in May."
    tracker.issues[2].description = long
    result = await run(
        'add the text "Also in the header." to the issue "Typo in footer"', settings, browser,
        f"{tracker.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    assert tracker.issues[2].description == f"{long.strip()} Also in the header."


async def test_a_long_text_area_that_cannot_be_read_whole_is_added_to_after_all_it_holds(
    wiki: WikiSite, settings: Settings, browser: Browser
) -> None:
    """The page shows the text area's text cut short and reading it gives nothing: the text
    is typed after what the field holds (enter_text's append), never over it."""
    long = "The river plan runs in three phases. " * 4 + "Phase one starts in May."
    wiki.pages["Delta"] = long
    result = await run(
        'add the text "Phase two follows." to the page "Delta"', settings, browser,
        f"{wiki.url}/",
    )  # fmt: skip
    assert result.status == "succeeded", result.answer
    kept, _, added = wiki.pages["Delta"].partition("Phase one starts in May.")
    assert kept == long.removesuffix("Phase one starts in May.")
    assert added.strip() == "Phase two follows."


@pytest.mark.parametrize(
    ("command", "target", "label", "value"),
    [
        ("assign ticket #10 to alice", "#10", "assignee", "alice"),
        ('assign the issue "Typo" to "bob"', "Typo", "assignee", "bob"),
        ('add the comment "Seen again" to ticket #14', "#14", "comment", "Seen again"),
        ('edit the issue #2 to add the text "x"', "#2", "text", "x"),
    ],
)
def test_a_thing_named_by_its_number_or_assigned_is_reached_then_edited(
    command: str, target: str, label: str, value: str
) -> None:
    reach, control, write, _save = tasks_of(command)
    assert isinstance(reach, Reach) and reach.phrase == target
    assert control.verb == "edit" and control.noun in ("ticket", "issue")
    assert (write.label, write.value) == (label, value)


async def test_an_issue_named_by_its_number_is_assigned_and_edited(
    tracker: TrackerSite, settings: Settings, browser: Browser
) -> None:
    result = await run("assign issue #2 to bob", settings, browser, f"{tracker.url}/")
    assert result.status == "succeeded", result.answer
    assert tracker.issues[2].assignee == "bob"
    result = await run(
        'edit the issue #1 to add the text "Also on Firefox."', settings, browser, f"{tracker.url}/"
    )
    assert result.status == "succeeded", result.answer
    assert tracker.issues[1].description == "The form does not answer. Also on Firefox."


def test_a_thing_is_reached_when_the_pages_title_begins_with_its_name() -> None:
    """A site's search that jumps to ticket #7 lands on its own page, titled by it; a page
    of results for it, or another ticket, is not that page."""
    from browser_agent.llm.offline.resolve import _numbered, _titled

    assert _titled("#7 (Glacier report fails) – Field Office", "#7")
    assert _titled("Gamma – Wiki", "Gamma")
    assert not _titled("Search results for #7 – Field Office", "#7")
    assert not _titled("#17 (Other) – Field Office", "#7")
    assert _numbered("#7", "#7") and _numbered("7", "#7")
    assert not _numbered("Trac 1.7", "#7") and not _numbered("#17", "#7")


async def test_a_thing_is_made_where_the_sites_administration_keeps_its_kind(
    settings: Settings, browser: Browser
) -> None:
    """No control adds a label where the command starts; the tracker's "Admin" lists
    "Labels", whose page has the form to add one (the Admin page's own form, its Name, is
    not it)."""
    with TrackerSite(admin=True) as tracker:
        result = await run('add the label "Regression"', settings, browser, f"{tracker.url}/")
        assert result.status == "succeeded", result.answer
        assert tracker.labels == ["Bug", "Feature", "Regression"]
        assert len(tracker.issues) == 2 and tracker.name == "Tracker"
        assert 'open the link "Labels", where the site keeps its labels' in (result.answer or "")


async def test_the_administration_is_no_way_to_a_kind_it_does_not_keep(
    settings: Settings, browser: Browser
) -> None:
    with TrackerSite(admin=True) as tracker:
        result = await run('add the milestone "Sprint 9"', settings, browser, f"{tracker.url}/")
        assert result.status == "failed", result.answer
        assert "looked for links or buttons named Add, New, Create, +" in (result.answer or "")
        assert tracker.labels == ["Bug", "Feature"] and len(tracker.issues) == 2
        assert tracker.name == "Tracker"
