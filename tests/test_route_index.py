"""The routing index finds exactly the templates that matching every template would, and
a command is matched only against templates that share its words."""

from __future__ import annotations

import json

from browser_agent.planner.route_index import index_of, template_words
from browser_agent.planner.router import route
from browser_agent.planner.templates import Command, match_template, parse_template
from browser_agent.store.rows import SkillRow

TEMPLATES = [
    "open {link_name}",
    "open the {page} page",
    "search for {search_term} and sort by {sort_by}",
    "add {product} in size {size}, quantity {quantity} to the cart",
    "{product} to the wishlist",
    "log in as {username} with password {password}",
    "accept the cookies",
    "rate {product} with 5 stars, it’s great",
    "type {text} into {{the box}}",
    "find {item} in department 7 and filter by {filter}",
]
COMMANDS = [
    "open Trail Blazer 2",
    "Open the deals page",
    "search for boots and sort by price low to high",
    "please search for 'road shoes' and sort by best seller now",
    "add Road Glide 5 in size 44, quantity 2 to the cart",
    "Road Glide 5 to the wishlist",
    "log in as demo with password secret",
    "accept cookies",
    "rate Mud Dog with 5 stars, it's great",
    "type hello into {the box}",
    "find boots in department 7 and filter by size",
    "find boots in department 8 and filter by size",
    "open the cart and check out",
    "compare road shoes with the cheapest",
]


def skills() -> list[SkillRow]:
    return [
        SkillRow(
            name=f"skill_{i}",
            module_path="",
            shape=template,
            id=i + 1,
            status="healthy",
            routable=True,
            command_templates=json.dumps([template]),
        )
        for i, template in enumerate(TEMPLATES)
    ]


def matched_by_all(command: str, rows: list[SkillRow]) -> set[str]:
    """The templates that match ``command`` when every one is tried."""
    parsed = Command.parse(command)
    verbs = index_of(rows).verbs
    return {t for t in TEMPLATES if match_template(parsed, parse_template(t), verbs)}


def test_the_index_finds_what_trying_every_template_finds() -> None:
    rows = skills()
    index = index_of(rows)
    for command in COMMANDS:
        parsed = Command.parse(command)
        candidates = {entry.text for entry in index.candidates(parsed)}
        assert matched_by_all(command, rows) <= candidates, command
        found = route(command, rows)
        best = found.template if found else None
        assert (best is None) == (not matched_by_all(command, rows)), command


def test_a_command_meets_only_templates_that_share_its_words() -> None:
    index = index_of(skills())
    candidates = index.candidates(Command.parse("find boots in department 8 and filter by size"))
    assert candidates == []  # the one "find" template needs the word 7
    assert [e.text for e in index.candidates(Command.parse("open Trail Blazer 2"))] == [
        "open {link_name}"
    ]


def test_template_words_are_the_templates_literal_words() -> None:
    for template in TEMPLATES:
        (read,) = template_words(json.dumps([template]))
        parsed = parse_template(template)
        assert read.words == {word for run in parsed.literals for word in run}, template
        assert read.verb == parsed.verb, template
    assert template_words("not json") == ()
    assert template_words(json.dumps(["{only_a_value}"])) == ()
