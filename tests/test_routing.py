"""Routing a command to a harvested skill: tolerant of wording (case, quotes, spacing,
punctuation, filler words), not of meaning (another word, another clause, a value that
does not fit its parameter); the most specific template wins; long commands route in
linear time."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from browser_agent.planner.router import Route, route, routes
from browser_agent.planner.templates import (
    Command,
    match_text,
    parse_template,
    split_list,
    strip_quotes,
)
from browser_agent.skills.replay import NEEDS_SECRET
from browser_agent.store.models import Skill
from browser_agent.store.routability import routable_after

OPEN = "open {link_name}"
SEARCH = "search for {search_term} and sort by {sort_by}"
ADD = "add {product} in size {size}, quantity {quantity} to the cart"


def skill(
    name: str,
    template: str,
    types: dict[str, dict[str, Any]] | None = None,
    *,
    created: int = 0,
    version: int = 1,
) -> Skill:
    """A healthy skill with this template; ``types`` gives parameters' JSON schemas."""
    signature = {"type": "function", "function": {"name": name, "parameters": {}}}
    signature["function"]["parameters"] = {"type": "object", "properties": types or {}}
    return Skill(
        name=name,
        module_path="",
        shape=template,
        status="healthy",
        routable=True,
        version=version,
        command_templates=json.dumps([template]),
        signature=json.dumps(signature),
        created_at=datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=created),
    )


def args(command: str, *skills: Skill) -> dict[str, Any] | None:
    found = route(command, skills)
    return None if found is None else found.arguments


def name_of(found: Route | None) -> str | None:
    return None if found is None else found.skill.name


@pytest.mark.parametrize(
    "command",
    [
        "open Trail Blazer 2",
        "OPEN Trail Blazer 2",
        "  open \t Trail Blazer 2  ",
        "open Trail Blazer 2.",
        "open Trail Blazer 2!",
        'open "Trail Blazer 2"',
        "open 'Trail Blazer 2'",
        "open “Trail Blazer 2”.",
        "open ‘Trail Blazer 2’",
        "please open Trail Blazer 2",
        "Kindly open Trail Blazer 2 now.",
        "now just open Trail Blazer 2",
    ],
)
def test_wording_does_not_stop_a_match_and_the_value_keeps_its_text(command: str) -> None:
    assert args(command, skill("open_link_name", OPEN)) == {"link_name": "Trail Blazer 2"}


def test_values_keep_their_own_case_spacing_and_inner_punctuation() -> None:
    search = skill("search_sort", SEARCH)
    assert args("Search for Road  Shoes and sort by Price: Low to High.", search) == {
        "search_term": "Road  Shoes",
        "sort_by": "Price: Low to High",
    }
    assert args("open 'Men's Boots'", skill("o", OPEN)) == {"link_name": "Men's Boots"}
    assert args("open the runners' club", skill("o", OPEN)) == {"link_name": "the runners' club"}
    # a question mark belongs to a message; a quoted value is taken as written
    assert args("ask Where is my order?", skill("a", "ask {message}")) == {
        "message": "Where is my order?"
    }
    assert args('open "Trail Blazer 2."', skill("o", OPEN)) == {"link_name": "Trail Blazer 2."}
    # a secret named in the command is passed on as its placeholder
    login = skill("log_in", "log in as {username} with password {password}")
    assert args("log in as demo with password {DEMO_PASSWORD}", login) == {
        "username": "demo",
        "password": "{DEMO_PASSWORD}",
    }


def test_quotes_in_the_template_are_optional_in_the_command_and_the_other_way_round() -> None:
    quoted = skill("type_note", 'type "{note}" into the notes')
    assert args("type hello world into the notes", quoted) == {"note": "hello world"}
    assert args("type 'hello world' into notes", quoted) == {"note": "hello world"}
    assert args("type “hello world” into the notes.", quoted) == {"note": "hello world"}
    assert args('search for "road shoes" and sort by "rating"', skill("s", SEARCH)) == {
        "search_term": "road shoes",
        "sort_by": "rating",
    }


def test_fillers_are_optional_in_the_literal_part_and_belong_to_it_next_to_a_value() -> None:
    add = skill("add_cart", "add {product} to the cart")
    assert args("add Road Glide 5 to cart", add) == {"product": "Road Glide 5"}
    assert args("please add Road Glide 5 to the the cart", add) == {"product": "Road Glide 5"}
    page = skill("open_page", "open the {section} page")
    assert args("open the deals page", page) == {"section": "deals"}
    assert args("open deals page", page) == {"section": "deals"}
    # a filler the template does not have there is part of the value
    assert args("add the Road Glide 5 to the cart", add) == {"product": "the Road Glide 5"}
    assert args("select size A", skill("size", "select size {size}")) == {"size": "A"}


def test_a_word_of_the_template_can_be_a_value() -> None:
    search_in = skill("search_in", "search for {search_term} in {department}")
    assert args("search for in in Trail", search_in) == {"search_term": "in", "department": "Trail"}
    assert args("open open", skill("o", OPEN)) == {"link_name": "open"}


def test_punctuation_between_words_does_not_matter() -> None:
    add = skill("add_size_quantity_cart", ADD)
    expected = {"product": "Road Glide 5", "size": "44", "quantity": "2"}
    assert args("add Road Glide 5 in size 44, quantity 2 to the cart", add) == expected
    assert args("add Road Glide 5 in size 44 quantity 2 to cart.", add) == expected
    assert args("Add Road Glide 5, in size 44; quantity 2, to the cart!", add) == expected


@pytest.mark.parametrize(
    "command",
    [
        "opne Trail Blazer 2",  # a typo in the template's word is another command
        "open",
        "open.",
        "open please",
        "open ?",
        "open “”",
        "go open Trail Blazer 2",
        "reopen Trail Blazer 2",
    ],
)
def test_a_different_word_or_a_missing_value_does_not_match(command: str) -> None:
    assert route(command, [skill("open_link_name", OPEN)]) is None


def test_a_typo_in_a_literal_word_does_not_match() -> None:
    search = skill("search_sort", SEARCH)
    assert route("serch for road shoes and sort by rating", [search]) is None
    assert route("search for road shoes and sort bye rating", [search]) is None
    assert route("search for road shoes and sort by rating", [search]) is not None


@pytest.mark.parametrize(
    "command",
    [
        "open the cart and check out",
        "open the cart and then pay",
        "open the cart, then pay",
        "open the cart then pay",
        "open the cart; pay for it",
        "open the cart. Pay for it.",
        "open the cart and also click Pay",
        "open the cart and proceed to checkout",
        "open the cart, and click Pay",
        "open the cart & click Pay",
        'open the cart and type "hello" into the note',
        "open the cart and wishlist it",  # "wishlist" starts another skill's template
    ],
)
def test_a_value_that_would_swallow_another_clause_does_not_match(command: str) -> None:
    skills = [skill("open_link_name", OPEN), skill("wishlist", "wishlist {item}")]
    assert route(command, skills) is None


def test_connectors_inside_a_value_are_fine_unless_a_clause_follows() -> None:
    open_link = skill("open_link_name", OPEN)
    assert args("open Salt and Pepper", open_link) == {"link_name": "Salt and Pepper"}
    assert args("open Black, White and Grey", open_link) == {"link_name": "Black, White and Grey"}
    assert args('open "Search and Find"', open_link) == {"link_name": "Search and Find"}
    assert route("open Search and Find", [open_link]) is None  # unquoted: "and find ..."
    search = skill("search_sort", SEARCH)
    assert route("search for shoes and sort by price and then open the first", [search]) is None


def test_integers_and_numbers_must_parse_or_the_skill_does_not_apply() -> None:
    add = skill(
        "add_size_quantity_cart",
        ADD,
        {"size": {"type": "number"}, "quantity": {"type": "integer"}},
    )
    assert args("add Road Glide 5 in size 44.5, quantity 2 to the cart", add) == {
        "product": "Road Glide 5",
        "size": 44.5,
        "quantity": 2,
    }
    assert route("add Road Glide 5 in size 44, quantity two to the cart", [add]) is None
    assert route("add Road Glide 5 in size 44, quantity 2.5 to the cart", [add]) is None
    assert route("add Road Glide 5 in size large, quantity 2 to the cart", [add]) is None
    assert route("add Road Glide 5 in size nan, quantity 2 to the cart", [add]) is None


def test_enums_and_booleans_are_checked_too() -> None:
    sort = skill(
        "sort_by", "sort by {order}", {"order": {"type": "string", "enum": ["Price", "Rating"]}}
    )
    assert args("sort by rating", sort) == {"order": "Rating"}
    assert route("sort by colour", [sort]) is None
    news = skill("news", "newsletter {on}", {"on": {"type": "boolean"}})
    assert args("newsletter yes", news) == {"on": True}
    assert args("newsletter Off", news) == {"on": False}
    assert route("newsletter maybe", [news]) is None


@pytest.mark.parametrize(
    ("written", "items"),
    [
        ("shoes, socks and laces", ["shoes", "socks", "laces"]),
        ("shoes, socks, laces", ["shoes", "socks", "laces"]),
        ("shoes, socks, and laces", ["shoes", "socks", "laces"]),
        ("shoes and socks", ["shoes", "socks"]),
        ("shoes", ["shoes"]),
        (
            '"salt and pepper", cumin and “thyme, dried”',
            ["salt and pepper", "cumin", "thyme, dried"],
        ),
    ],
)
def test_lists_are_split_for_array_parameters(written: str, items: list[str]) -> None:
    compare = skill(
        "compare",
        "compare {products}",
        {"products": {"type": "array", "items": {"type": "string"}}},
    )
    assert args(f"compare {written}", compare) == {"products": items}
    assert split_list(written) == items


def test_list_items_are_typed_and_a_quoted_list_value_is_one_item() -> None:
    sizes = skill(
        "sizes", "show sizes {sizes}", {"sizes": {"type": "array", "items": {"type": "integer"}}}
    )
    assert args("show sizes 40, 41 and 42", sizes) == {"sizes": [40, 41, 42]}
    assert route("show sizes 40, big and 42", [sizes]) is None
    names = skill("names", "compare {names}", {"names": {"type": "array", "items": {}}})
    assert args('compare "Trail Blazer 2, Road Glide 5"', names) == {
        "names": ["Trail Blazer 2, Road Glide 5"]
    }


def test_the_most_specific_template_wins() -> None:
    open_any = skill("open_link_name", OPEN, created=2)
    open_cart = skill("open_cart", "open the cart")
    assert name_of(route("open the cart", [open_any, open_cart])) == "open_cart"
    assert name_of(route("open Trail Blazer 2", [open_any, open_cart])) == "open_link_name"

    search_only = skill("search", "search for {search_term}", created=3)
    search_in = skill("search_in", "search for {search_term} in {department}")
    found = routes("search for boots in Trail", [search_only, search_in])
    assert [f.skill.name for f in found] == ["search_in", "search"]

    # the same literal words: fewer characters taken by parameters wins
    by_page = skill("go_page", "go to {section} page", created=5)
    by_deals = skill("go_deals", "go to deals {part}")
    assert name_of(route("go to deals page", [by_page, by_deals])) == "go_deals"

    # all equal: the newest version wins
    old = skill("add_cart", "add {product} to the cart", created=1)
    new = skill("add_to_cart", "add {item} to cart", created=4)
    assert name_of(route("add Road Glide 5 to the cart", [old, new])) == "add_to_cart"
    assert name_of(route("add Road Glide 5 to the cart", [new, old])) == "add_to_cart"


def test_a_skill_that_does_not_fit_leaves_the_next_one() -> None:
    numbered = skill(
        "add_n", "add {count} pairs to the cart", {"count": {"type": "integer"}}, created=2
    )
    named = skill("add_named", "add {product} pairs to the cart", created=1)
    assert name_of(route("add 2 pairs to the cart", [named, numbered])) == "add_n"
    assert args("add Road Glide pairs to the cart", numbered, named) == {"product": "Road Glide"}


def test_only_routable_skills_route() -> None:
    """Routing reads the stored field alone: a last error's words do not change it."""
    stale = skill("open_link_name", OPEN)
    stale.status, stale.routable = "stale", False
    assert route("open Trail Blazer 2", [stale]) is None
    waiting = skill("log_in", "log in as {username} with password {password}")
    waiting.status, waiting.last_error = "candidate", "step 1: #gone is not there"
    assert route("log in as demo with password {PW}", [waiting]) is not None
    waiting.routable, waiting.last_error = False, NEEDS_SECRET
    assert route("log in as demo with password {PW}", [waiting]) is None


def test_routability_is_decided_from_health_as_it_is_written() -> None:
    plan = json.dumps({"steps": [{"address": ""}, {"address": "/search?q={q}"}]})
    assert routable_after("healthy", True, "", None)
    assert not routable_after("healthy", False, "", None)  # partial
    assert routable_after("candidate", True, "", NEEDS_SECRET)
    assert not routable_after("candidate", True, "", "step 2: #gone is not there")
    assert routable_after("stale", True, plan, "step 2: #gone is not there")
    assert not routable_after("stale", True, plan, "step 1: #gone is not there")
    assert routable_after("stale", True, plan, "it broke", step=2)  # the writer knows where
    assert routable_after("stale", True, json.dumps({"end_address": "/x", "steps": []}), None)
    assert not routable_after("retired", True, plan, None)


def test_templates_that_cannot_be_split_never_match() -> None:
    assert not parse_template("type {first} {last}").usable
    assert not parse_template("{anything}").usable
    assert route("open the cart", [skill("any", "{anything}")]) is None
    assert route("open the cart", [skill("any", "the {anything}")]) is None
    assert route("type Ada Lovelace", [skill("t", "type {first} {last}")]) is None
    assert route("type Ada the Lovelace", [skill("t", "type {first} the {last}")]) is None
    assert route("a {literal} y", [skill("b", "a {{literal}} {x}")]) is not None


def test_a_long_command_routes_and_keeps_its_whole_value() -> None:
    term = "road shoes with a grippy sole " * 4_000  # about 120 kB
    command = f"search for {term}and sort by price"
    found = route(command, [skill("search_sort", SEARCH), skill("open_link_name", OPEN)])
    assert found is not None and found.skill.name == "search_sort"
    assert found.arguments == {"search_term": term.strip(), "sort_by": "price"}
    assert route(command + " and then open the first", [skill("search_sort", SEARCH)]) is None


def test_commands_are_read_into_words_and_marks_once() -> None:
    command = Command.parse("Please open “Men’s Boots”, now!")
    assert [t.norm for t in command.tokens] == [
        "please",
        "open",
        "“",
        "men's",
        "boots",
        "”",
        ",",
        "now",
        "!",
    ]
    assert [command.tokens[i].norm for i in command.content] == ["open", "men's", "boots"]
    assert command.partner == {2: 5, 5: 2}
    assert strip_quotes(" 'Men's Boots' ") == "Men's Boots"
    assert strip_quotes("'a' and 'b'") == "'a' and 'b'"


def test_one_command_against_one_template() -> None:
    assert match_text("Search for 'road shoes' and sort by rating.", SEARCH) == {
        "search_term": "road shoes",
        "sort_by": "rating",
    }
    assert match_text("search for road shoes and then sort by rating", SEARCH) is None


def test_a_skill_that_builds_its_first_address_routes_from_any_page_of_its_site() -> None:
    """Learnt on /wiki/Gamma: a skill whose first step opens /wiki/NAME built from the name
    it is given routes from the site's front page; one that starts on the page it was
    learnt on (its address is not built) routes only from there, even when that address
    holds one of its values."""
    built = {"steps": [{"primitive": "open_url", "arguments": {"url": {"kind": "url"}}}]}
    kept = {"steps": [{"primitive": "open_url", "arguments": {"url": {"kind": "start_url"}}}]}
    site = "http://127.0.0.1:8811"
    for plan, from_root in ((built, True), (kept, False)):
        edit = skill("edit_page", 'edit the page "{page}" to add "{text}"')
        edit.start_url, edit.plan = f"{site}/wiki/Gamma", json.dumps(plan)
        edit.example_args = json.dumps({"page": "Gamma", "text": "x"})
        found = route('edit the page "Delta" to add "y"', [edit], f"{site}/")
        assert (found is not None) is from_root
        assert route('edit the page "Delta" to add "y"', [edit], f"{site}/wiki/Gamma")
