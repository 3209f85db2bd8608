"""How the offline planner reads phrasings found on pages nobody here wrote: quoted
targets with punctuation, lists, menu paths, label-value pairs, "as the" fields, focus
and positions, letter case, values read off the page, lead-in clauses, scoped searches."""

from __future__ import annotations

import pytest

from browser_agent.llm.offline.tasks import ONLY, Assign, Explore, Press, Search
from tests.offline_runs import tasks_of


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('Click on the link "tempor."', [Press(("tempor.",), role="link")]),
        ('Click the button in the dialog box labeled "x".', [Press(("x",), role="button")]),
        (
            "Click button ONE, then click button TWO.",
            [Press(("ONE",), role="button"), Press(("TWO",), role="button")],
        ),
        (
            "Select XN46, DeG and bXPpd and click Submit",
            [
                Assign("XN46", clicks=True),
                Assign("DeG", clicks=True),
                Assign("bXPpd", clicks=True),
                Press(("Submit",)),
            ],
        ),
        ("Select nothing and click Submit", [Press(("Submit",))]),
        (
            "Select File>Save as",
            [Press(("File",), hover=True), Press(("Save as",))],
        ),
        (
            'Enter the username "ada" and the password "x1" into the text fields and press login',
            [
                Assign(keys=("username",), value="ada"),
                Assign(keys=("password",), value="x1"),
                Press(("login",)),
            ],
        ),
        (  # the password the command gave is a secret's placeholder by the time it is read
            'Enter the username "ada" and the password {PASSWORD} into the text fields and '
            "press login",
            [
                Assign(keys=("username",), value="ada"),
                Assign(keys=("password",), value="{PASSWORD}"),
                Press(("login",)),
            ],
        ),
        ("Enter 7:55 PM as the time", [Assign(keys=("time",), value="7:55 PM")]),
        (
            'Type "tora" in all upper case letters in the text input',
            [Assign(keys=("text",), value="TORA")],
        ),
        ("Focus into the 3rd input textbox.", [Press(("3rd input textbox",), "textbox", nth=3)]),
        ("Focus into the textbox.", [Press(("textbox",), "textbox", nth=ONLY)]),
        ("click the 2nd checkbox", [Press(("2nd",), role="checkbox", nth=2)]),
        (
            "Enter the value of Language into the text field",
            [Assign(keys=("text",), read_from="Language")],
        ),
        (
            'Switch between the tabs to find and click on the link "In".',
            [Explore("tabs"), Press(("In",), role="link")],
        ),
        ("search the docs for asyncio.gather", [Search("asyncio.gather", "docs", strict=False)]),
    ],
)
def test_phrasing(command: str, expected: list) -> None:
    assert tasks_of(command) == expected


def test_a_list_of_words_like_others_is_not_guessed_at() -> None:
    """'words similar to rabbit' names no box: the planner will say it could not."""
    first = tasks_of("Select words similar to rabbit, angry and click Submit.")[0]
    assert first == Assign("words similar to rabbit", clicks=True)
