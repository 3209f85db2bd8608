"""How the harvest reads single steps of application flows: what a skill leaves to the
planner and says so, a form's radio that opens the field for the command's value, values
in an opened address, where replays must end, and typed values that contradict the command.

The unit logs are written the way this project's planner and recorder write them (see
tests/test_harvest_apps.py)."""

from __future__ import annotations

import pytest

from browser_agent.harvest.logs import parse_messages
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.export import script_for
from browser_agent.plans.plan import BuiltUrl, ByRoleName, NotHarvestable
from browser_agent.plans.plan_data import plan_text, read_plan
from tests.test_harvest import shop_log, tool_round
from tests.test_harvest_apps import SITE, click, dom, opened, plan_of, typed


def test_the_actions_after_where_a_skill_ends_are_named_in_the_report() -> None:
    """Every action of the run is in the skill or named, with why: a skill that stops at
    a judgement is partial, and the report says which actions it leaves to the planner."""
    plan = plan_of(
        "assign ticket #8 to dave",
        opened("c1", "/ticket/8"),
        dom(
            "c2",
            "/ticket/8",
            '[105] link "Modify Ticket" id=no3',
            '[194] radio "reassign" id=action_reassign (unchecked)',
        ),
        click("c2b", 105, '<a id="no3" href="#no3">Modify Ticket</a>', "/ticket/8#no3"),
        dom("c2c", "/ticket/8#no3", '[194] radio "reassign" id=action_reassign (unchecked)'),
        click("c3", 194, '<input id="action_reassign" name="action" type="radio">'),
        typed("c4", 196, "dave", '<input id="action_reassign_reassign_owner">'),
        click("c5", 231, '<input name="submit" type="submit">', "/ticket/8"),
    )
    assert not plan.complete
    assert plan.left_out == [
        "3 actions from where the skill ends (click, enter_text, click): choosing the radio "
        "'reassign' was a choice among page content; the skill is partial and is never routed"
    ]


def test_a_radio_that_opens_the_field_for_the_commands_value_is_a_step_of_the_form() -> None:
    """The owner field is disabled until "reassign" is chosen, and the run then types the
    command's "dave" into it: choosing the radio is part of filling the form, kept as a
    literal; the value is a parameter named for its field."""
    plan = plan_of(
        "assign ticket #8 to dave",
        opened("c1", "/ticket/8"),
        dom(
            "c2",
            "/ticket/8",
            '[194] radio "reassign" id=action_reassign value=reassign (unchecked)',
            "[196] textbox: somebody id=action_reassign_reassign_owner (disabled)",
        ),
        click("c3", 194, '<input id="action_reassign" name="action" type="radio">'),
        typed("c4", 196, "dave", '<input id="action_reassign_reassign_owner">'),
        click("c5", 231, '<input name="submit" type="submit">', "/ticket/8"),
    )
    assert plan.complete, plan.ended_because
    assert plan.template == "assign ticket #{ticket} to {owner}"
    radio = plan.steps[2]
    assert radio.arguments["selector"] == "#action_reassign" and radio.checked


def test_a_query_value_of_an_opened_address_is_a_parameter() -> None:
    plan = plan_of(
        "search for report and sort by date",
        opened("c1", "/search?q=report&page=1"),
        dom("c2", "/search", '[5] link "date"'),
        click("c3", 5, '<a href="/search?sort=date">date</a>', "/search?sort=date"),
    )
    assert plan.template == "search for {search_term} and sort by {link_name}"
    url = plan.steps[1].arguments["url"]
    assert isinstance(url, BuiltUrl) and url.parts[1] is plan.params[0]
    assert url.parts[0].endswith("/search?q=") and url.parts[2] == "&page=1"


def test_an_address_word_naming_the_next_value_stays_literal() -> None:
    """`add the category "Trees"` opened ``?taxonomy=category``: "category" is said by the
    command, but as the kind of the value that follows, so it stays in the address as it
    was; were it a parameter, the template would hold two parameters with nothing between
    them and no command could be routed to it."""
    path = "/wp-admin/edit-tags.php?taxonomy=category"
    plan = plan_of(
        'add the category "Trees"',
        opened("c1", path),
        dom("c2", path, '[40] textbox "Name" id=tag-name', '[44] button "Add New Category"'),
        typed("c3", 40, "Trees", '<input id="tag-name" name="tag-name">'),
        click("c4", 44, '<input id="submit" type="submit" value="Add New Category">'),
    )
    assert plan.template == 'add the category "{name}"'
    assert [p.name for p in plan.params] == ["name"]
    assert plan.steps[1].arguments["url"] == SITE + path


@pytest.mark.parametrize(
    ("end", "expected"),
    [("/wp-admin/users.php?id=4", ""), ("/wp-admin/users.php?role=author", None)],
)
def test_a_number_the_app_gave_in_the_end_address_is_not_where_replays_must_end(
    end: str, expected: str | None
) -> None:
    """After "add a user" the app shows the new user's number in the query (``?id=4``):
    every replay makes another user, so its end is not held to that number; a query value
    of the app's own words is still where a replay must end."""
    from browser_agent.harvest.harvester import _expected_end

    path = "/wp-admin/user-new.php"
    plan = plan_of(
        "add a user kim with the email kim@example.org",
        opened("c1", path),
        dom(
            "c2",
            path,
            '[40] textbox "Username (required)" id=user_login',
            '[41] textbox "Email (required)" id=email',
            '[44] button "Add New User" id=createusersub',
        ),
        typed("c3", 40, "kim", '<input id="user_login" name="user_login">'),
        typed("c4", 41, "kim@example.org", '<input id="email" name="email" type="email">'),
        click("c5", 44, '<input id="createusersub" type="submit" value="Add New User">', end),
    )
    assert plan.complete, plan.ended_because
    assert _expected_end(plan) == (end if expected is None else expected)


def test_a_name_holding_a_quoted_value_and_a_word_before_it_is_not_one_value() -> None:
    """ "Milestone Sprint 4", clicked for 'remove the milestone "Sprint 4"', is not the
    command's text 'milestone "Sprint 4' as one value: a parameter never takes half of a
    quoted value. The link is named by the value searched for, with the site's word."""
    plan = plan_of(
        'remove the milestone "Sprint 4"',
        dom("c1", "/", '[7] textbox "Search:" id=proj-search'),
        typed("c2", 7, "Sprint 4", '<input id="proj-search" name="q">', enter=True),
        dom("c3", "/search", '[51] link "Milestone Sprint 4"', '[52] link "Sprint 4 notes"'),
        click("c4", 51, '<a href="/milestone/Sprint%204">Milestone Sprint 4</a>', "/m"),
    )
    assert '"' not in plan.template.replace('"{', "").replace('}"', "")
    assert plan.steps[2].arguments["selector"].before == "Milestone "


def test_a_result_named_by_the_value_with_the_sites_words_around_it_is_one_parameter() -> None:
    """A search for the milestone, then its result "Milestone Sprint 4" (the site's word,
    then the value): one parameter with the site's words kept around it, a reading the
    verifying replay decides; a result with a number beside the value stays a choice."""
    command = 'remove the milestone "Sprint 4"'
    plan = plan_of(
        command,
        dom("c1", "/", '[7] textbox "Search" id=proj-search name=q'),
        typed("c2", 7, "Sprint 4", '<input id="proj-search" name="q">', enter=True),
        dom("c3", "/search?q=Sprint+4", '[20] link "Milestone Sprint 4"', '[21] link "Roadmap"'),
        click(
            "c4",
            20,
            '<a href="/milestone/Sprint%204">Milestone Sprint 4</a>',
            "/milestone/Sprint%204",
        ),
        dom("c5", "/milestone/Sprint%204", '[30] button "Delete milestone"'),
        click("c6", 30, '<input type="submit" value="Delete milestone">', "/roadmap"),
    )
    named = plan.steps[2].arguments["selector"]
    assert isinstance(named, ByRoleName)
    assert (named.param.example, named.before, named.after) == ("Sprint 4", "Milestone ", "")
    assert plan.template == 'remove the milestone "{milestone}"' and plan.complete
    assert "read as named by milestone" in plan.steps[2].speculated
    code = generate_module(plan, "remove_milestone")
    assert "name='Milestone ' + milestone + ''" in code
    assert read_plan(plan_text(plan)).steps[2].arguments["selector"] == named
    exported = script_for(plan, "remove_milestone", 1)
    assert "get_by_role('link', name='Milestone ' + args.milestone + ''" in exported

    other = plan_of(
        command,
        dom("c1", "/", '[7] textbox "Search" id=proj-search name=q'),
        typed("c2", 7, "Sprint 4", '<input id="proj-search" name="q">', enter=True),
        dom("c3", "/search?q=Sprint+4", '[20] link "Sprint 4 notes, 2 comments"'),
        click("c4", 20, '<a href="/wiki/Notes">Sprint 4 notes, 2 comments</a>', "/wiki/Notes"),
    )
    assert "was a choice among page content" in other.ended_because


def test_values_the_site_lists_beside_a_named_link_lead_to_addresses_of_its_shape() -> None:
    """A table's other column headers are values the site offers for the column a sort
    names; the export links beside them lead elsewhere and are not."""
    plan = plan_of(
        "sort the sightings by count",
        dom(
            "c1",
            "/field/sightings",
            '[3] link "json" href=/field/sightings.json',
            '[4] link "species" href=?_sort=species',
            '[5] link "count" href=?_sort=count',
            '[6] link "place" href=?_sort=place',
        ),
        click("c2", 5, '<a href="?_sort=count">count</a>', "/field/sightings?_sort=count"),
    )
    assert plan.listed == {"link_name": ["species", "place"]}


def test_a_typed_value_that_contradicts_the_command_is_refused_by_name() -> None:
    """The run typed grace@example.com (corrected in the console) where the command says
    ada@example.com: no skill whose template says one address and whose code types the
    other; the step is refused, naming both."""
    command = "type ada@example.com into the Get deals by email field and click Subscribe"
    with pytest.raises(NotHarvestable, match="not the command's 'ada@example.com'"):
        plan_of(
            command,
            dom("c1", "/", '[43] textbox "Get deals by email" id=newsletter-email'),
            typed("c2", 43, "grace@example.com", '<input id="newsletter-email">'),
            click("c3", 44, '<button id="newsletter-submit">Subscribe</button>'),
        )
    plan = plan_of(
        command,
        dom("c1", "/", '[43] textbox "Get deals by email" id=newsletter-email'),
        typed("c2", 43, "ada@example.com", '<input id="newsletter-email">'),
    )
    assert plan.template.startswith("type {")


def test_a_skill_starts_from_the_address_asked_not_where_the_site_moved_it() -> None:
    """The front page asked for moves on to /index.php/Main_Page: the skill starts from the
    address a command is given, so a command given the front page is routed to it."""
    moved = tool_round(
        "c0", "open_url", {"url": SITE + "/"}, f"Page loaded: {SITE}/index.php/Main_Page."
    )
    log = shop_log(
        'open the wiki page "Gamma"',
        moved,
        dom("c1", "/index.php/Main_Page", '[5] link "Gamma"'),
        click("c2", 5, '<a href="/index.php/Gamma">Gamma</a>', "/index.php/Gamma"),
    )
    plan = plan_skill(parse_messages(log, "log.json"))
    assert plan.start_url == SITE + "/"


@pytest.mark.parametrize(
    ("command", "value", "result", "address"),
    [  # Redmine's search results, then Trac's, as each application names them
        (
            'open the issue titled "Falcon raven report fails on saffron"',
            "Falcon raven report fails on saffron",
            "Bug #6 (New): Falcon raven report fails on saffron",
            "/issues/6",
        ),
        (
            'open the ticket titled "Harbor sync stalls"',
            "Harbor sync stalls",
            "#8: Harbor sync stalls (new defect)",
            "/ticket/8",
        ),
    ],
)
def test_a_result_holding_the_value_with_its_items_own_number_is_found_by_the_value(
    command: str, value: str, result: str, address: str
) -> None:
    """A search, then the result whose name is the value among the item's own words (its
    number, in its address, and its status): one parameter, the result found by the value
    within its name, a reading the replays decide; the skill ends on the item's page."""
    plan = plan_of(
        command,
        dom("c1", "/", '[27] textbox "Search:" id=q'),
        typed("c2", 27, value, '<input id="q" name="q" type="text">', enter=True),
        dom("c3", "/search?q=x", '[27] textbox "Search:" id=q', f'[81] link "{result}"'),
        click("c4", 81, f'<a href="{address}">{result}</a>', address),
    )
    assert plan.complete, plan.ended_because
    named = plan.steps[2].arguments["selector"]
    assert isinstance(named, ByRoleName) and named.within and named.param.example == value
    assert "among words of its item's own" in plan.steps[2].speculated
    assert read_plan(plan_text(plan)).steps[2].arguments["selector"] == named
    code = generate_module(plan, "open_item")
    assert f"name={named.param.name}, within=True" in code
    exported = script_for(plan, "open_item", 1)
    assert f"get_by_role('link', name=args.{named.param.name})" in exported


def test_the_values_a_site_lists_with_its_words_around_them_are_fresh_values_to_replay() -> None:
    """Trac's search results list milestones as "Milestone Sprint 54", each above its date:
    the others beside the one clicked give the replays values the site has (a removal's
    own example is gone once the demonstration removed it), the site's words cut off."""
    plan = plan_of(
        'remove the milestone "Sprint 4"',
        dom("c1", "/", '[7] textbox "Search:" id=proj-search'),
        typed("c2", 7, "Sprint 4", '<input id="proj-search" name="q">', enter=True),
        dom(
            "c3",
            "/search?q=Sprint+4",
            '[50] h2 "Results (1 - 3 of 3)"',
            '[62] link "Milestone Sprint 54"',
            '[66] "Dec 5, 2026, 7:14:16 PM"',
            '[68] link "Milestone Sprint 4"',
            '[72] "Dec 5, 2026, 7:14:16 PM"',
            '[74] link "Milestone Sprint 49"',
            '[78] "Dec 5, 2026, 7:14:16 PM"',
        ),
        click("c4", 68, '<a href="/milestone/Sprint%204">Milestone Sprint 4</a>', "/milestone/x"),
    )
    assert isinstance(plan.steps[2].arguments["selector"], ByRoleName)
    assert plan.listed == {"milestone": ["Sprint 54", "Sprint 49"]}
