"""Skills that generalize: every value the command names becomes a parameter (labels, lists,
menu paths, positions, letter case), and what the page chose stays out of the skill.

The logs are written the way this project's planner writes them (see tests/test_harvest.py).
"""

from __future__ import annotations

import ast

from browser_agent.dom.page_content import fenced
from browser_agent.harvest.logs import parse_messages
from browser_agent.harvest.plan_steps import plan_skill
from browser_agent.plans.codegen import generate_module
from browser_agent.plans.plan import ByRoleName, NotHarvestable, NthOfRole
from tests.test_harvest import shop_log, tool_round

URL = "http://tasks.test/page"
OPEN = tool_round("c1", "open_url", {"url": URL}, f"Page loaded: {URL}, title 'Task'.")


def dom(call_id: str, *lines: str) -> list[dict]:
    """A get_dom round showing ``lines`` (the distilled page)."""
    text = "\n".join([f'Page "Task" at {URL}', *lines])
    return tool_round(call_id, "get_dom", {"content_type": "all_fields"}, text)


def click(call_id: str, mmid: int, tag: str, after: str = "") -> list[dict]:
    said = f"Clicked {tag}. {after}".strip()
    return tool_round(call_id, "click", {"selector": f"[mmid='{mmid}']"}, said)


def hover(call_id: str, mmid: int, tag: str) -> list[dict]:
    said = f"Hovered over {tag}. 3 new elements appeared."
    return tool_round(call_id, "hover", {"selector": f"[mmid='{mmid}']"}, said)


def typed(call_id: str, mmid: int, text: str, tag: str) -> list[dict]:
    said = f"Text {text!r} entered in {tag}."
    return tool_round(call_id, "enter_text", {"selector": f"[mmid='{mmid}']", "text": text}, said)


def plan_of(command: str, *rounds: list[dict]):  # type: ignore[no-untyped-def]
    return plan_skill(parse_messages(shop_log(command, OPEN, *rounds), "log.json"))


CHECKBOXES = dom(
    "c2",
    '[2] text "Select XN46, DeG and bXPpd and click Submit."',
    '[4] checkbox "DeG" id=ch0 (unchecked)',
    '[5] checkbox "XN46" id=ch1 (unchecked)',
    '[6] checkbox "Q7" id=ch2 (unchecked)',
    '[7] checkbox "bXPpd" id=ch3 (unchecked)',
    '[8] button "Submit" id=subbtn',
)


def test_a_list_of_labels_becomes_one_list_parameter_and_a_loop() -> None:
    plan = plan_of(
        "Select XN46, DeG and bXPpd and click Submit.",
        CHECKBOXES,
        click("c3", 5, '<input id="ch1" type="checkbox">'),
        click("c4", 4, '<input id="ch0" type="checkbox">'),
        click("c5", 7, '<input id="ch3" type="checkbox">'),
        click("c6", 8, '<button id="subbtn">Submit</button>'),
    )
    assert plan.template == "Select {checkbox_names} and click {button_name}."
    listed = next(p for p in plan.params if p.kind == "list")
    assert listed.example == ["XN46", "DeG", "bXPpd"]
    code = generate_module(plan, "select_boxes")
    assert "checkbox_names: Annotated[list[str]" in code
    assert "for item in checkbox_names:" in code
    assert "await find(STEP_2, name=item)" in code
    assert "checked=True" in code  # each tick is checked on the box itself
    assert '"#ch1"' not in code.split("async def")[1]  # no recorded id decides which box


def test_one_checkbox_label_is_still_a_list_and_an_id_does_not_hide_it() -> None:
    plan = plan_of(
        "Select Q7 and click Submit.",
        CHECKBOXES,
        click("c3", 6, '<input id="ch2" type="checkbox">'),
        click("c4", 8, '<button id="subbtn">Submit</button>'),
    )
    assert plan.template == "Select {checkbox_names} and click {button_name}."
    assert plan.params[0].example == ["Q7"]


def test_a_menu_path_becomes_a_path_parameter_pointed_at_then_clicked() -> None:
    menu = dom(
        "c2",
        '[2] text "Select Xaviera>Laurie>Melinde"',
        '[6] menuitem "Xaviera" id=ui-id-1',
        '[9] menuitem "Lindsay" id=ui-id-9',
    )
    opened = dom("c4", '[6] menuitem "Xaviera" id=ui-id-1', '[7] menuitem "Laurie" id=ui-id-2')
    deeper = dom("c6", '[7] menuitem "Laurie" id=ui-id-2', '[8] menuitem "Melinde" id=ui-id-3')
    plan = plan_of(
        "Select Xaviera>Laurie>Melinde",
        menu,
        hover("c3", 6, '<div id="ui-id-1" role="menuitem">Xaviera</div>'),
        opened,
        hover("c5", 7, '<div id="ui-id-2" role="menuitem">Laurie</div>'),
        deeper,
        click("c7", 8, '<div id="ui-id-3" role="menuitem">Melinde</div>'),
    )
    assert plan.template == "Select {menu_path}"
    assert plan.params[0].example == "Xaviera>Laurie>Melinde"
    code = generate_module(plan, "select_menu_path")
    assert "for item, last in path_items(menu_path):" in code
    assert "await click(selector=target) if last else await hover(selector=target)" in code


def test_a_position_the_command_names_becomes_an_ordinal_parameter() -> None:
    plan = plan_of(
        "Focus into the 3rd input textbox.",
        dom("c2", "[4] textbox id=tt1", "[5] textbox id=tt2", "[6] textbox id=tt3"),
        click("c3", 6, '<input id="tt3" type="text">'),
    )
    assert plan.template == "Focus into the {position} input textbox."
    [step] = [s for s in plan.steps if s.primitive == "click"]
    assert isinstance(step.arguments["selector"], NthOfRole)
    assert "await find(STEP_2, nth=position)" in generate_module(plan, "focus_input_textbox")


def test_typed_text_keeps_the_letter_case_the_command_asks_for() -> None:
    plan = plan_of(
        'Type "tora" in all upper case letters in the text input and press Submit.',
        dom("c2", "[6] textbox id=tt", '[7] button "Submit" id=subbtn'),
        typed("c3", 6, "TORA", '<input id="tt" type="text">'),
        click("c4", 7, '<button id="subbtn">Submit</button>'),
    )
    assert plan.template == (
        'Type "{text}" in all {letter_case} case letters in the text input and press {button_name}.'
    )
    code = generate_module(plan, "type_text")
    assert "text=with_case(text, letter_case)" in code
    assert "value=with_case(text, letter_case)" in code  # the field must hold the cased text


def test_an_x_in_the_command_names_the_close_button() -> None:
    plan = plan_of(
        'Click the button in the dialog box labeled "x".',
        dom("c2", '[21] button "Close"', '[28] button "Cancel"', '[29] button "OK"'),
        click("c3", 21, '<button type="button" title="Close">Close</button>'),
    )
    assert plan.template == 'Click the button in the dialog box labeled "{button_name}".'
    assert plan.params[0].example == "x"


def test_a_verb_that_is_also_a_button_name_stays_literal() -> None:
    plan = plan_of(
        "Close the dialog",
        dom("c2", '[21] button "Close" id=close'),
        click("c3", 21, '<button id="close">Close</button>'),
    )
    assert plan.params == [] and plan.template == "Close the dialog"


def test_a_value_inside_a_larger_token_is_not_a_parameter() -> None:
    """The day "24" of "12/24/2016" is part of a date, not a name the command gives."""
    calendar = dom("c2", '[41] link "23" href=#', '[42] link "24" href=#')
    try:
        plan = plan_of(
            "Select 12/24/2016 as the date", calendar, click("c3", 42, '<a href="#">24</a>')
        )
    except NotHarvestable as exc:
        assert "choice among page content" in str(exc)
    else:
        raise AssertionError(f"the day became part of a skill: {plan.template}")


def test_a_box_the_command_does_not_name_was_a_judgement() -> None:
    """'Select words similar to rabbit': which box is similar was decided over the page."""
    boxes = dom("c2", '[4] checkbox "bunnies" id=ch0 (unchecked)', '[8] button "Submit"')
    try:
        plan_of(
            "Select words similar to rabbit and click Submit.",
            boxes,
            click("c3", 4, '<input id="ch0" type="checkbox">'),
        )
    except NotHarvestable as exc:
        assert "choosing the checkbox 'bunnies' was a choice among page content" in str(exc)
    else:
        raise AssertionError("a judgement became a literal step")


def test_text_read_off_the_page_ends_the_skill() -> None:
    table = dom(
        "c2",
        '[17] text "Language"',
        '[18] text "Bengali"',
        "[23] textbox id=tt",
        '[24] button "Submit" id=subbtn',
    )
    try:
        plan_of(
            "Enter the value of Language into the text field and press Submit.",
            table,
            typed("c3", 23, "Bengali", '<input id="tt" type="text">'),
        )
    except NotHarvestable as exc:
        assert "'Bengali' it typed was read off the page" in str(exc)
    else:
        raise AssertionError("a value read off the page became a literal")


def test_a_read_on_the_way_is_a_look_but_text_it_read_and_typed_ends_the_skill() -> None:
    """A read followed by other actions decides nothing by itself and the skill goes past
    it; text the read gave that is then typed (not said by the command) was judgement."""
    form = dom("c2", "[17] paragraph id=lang", "[23] textbox id=tt")
    read = tool_round(
        "c3", "extract_text", {"selector": "[mmid='17']"},
        f"Text of <p id=\"lang\">:\n{fenced(repr('Language: Bengali'))}",
    )  # fmt: skip
    plan = plan_of(
        "Enter Hindi into the text field", form, read,
        typed("c4", 23, "Hindi", '<input id="tt" type="text">'),
    )  # fmt: skip
    assert [s.primitive for s in plan.steps] == ["open_url", "enter_text"]
    try:
        plan_of(
            "Enter the language into the text field", form, read,
            typed("c4", 23, "Language: Bengali", '<input id="tt" type="text">'),
        )  # fmt: skip
    except NotHarvestable as exc:
        assert "'Language: Bengali' it typed was read off the page" in str(exc)
    else:
        raise AssertionError("a value read off the page became a literal")


def test_a_field_with_only_a_text_before_it_is_found_by_that_text() -> None:
    form = dom(
        "c2",
        '[11] text "Genre"',
        "[13] textbox",
        '[15] text "Director"',
        "[17] textbox",
        '[22] div "Submit" (clickable)',
    )
    plan = plan_of(
        "Search for surreal movies directed by Baxter",
        form,
        typed("c3", 13, "surreal", "<input>"),
        typed("c4", 17, "Baxter", "<input>"),
        click("c5", 22, '<div class="final">Submit</div>'),
    )
    assert plan.template == "Search for {genre} movies directed by {director}"
    selectors = [t.selector for s in plan.steps for t in s.targets.values()]
    assert selectors[0] == 'xpath=(//*[normalize-space(text())="Genre"]/following::input)[1]'
    assert selectors[2].startswith("div:text-matches(")


def test_a_selector_the_model_wrote_is_guarded_too() -> None:
    plan = plan_of(
        "press the big red button",
        tool_round("c2", "click", {"selector": "#big-red"}, "Clicked it."),
    )
    [step] = [s for s in plan.steps if s.primitive == "click"]
    code = generate_module(plan, "press_button")
    assert step.targets["selector"].role == "*"
    assert "await find(STEP_2)" in code and "selector='#big-red'" in code
    ast.parse(code)


def test_each_named_button_of_a_sequence_is_its_own_parameter() -> None:
    plan = plan_of(
        "Click button ONE, then click button TWO.",
        dom("c2", '[4] button "ONE" id=subbtn', '[5] button "TWO" id=subbtn2'),
        click("c3", 4, '<button id="subbtn">ONE</button>'),
        click("c4", 5, '<button id="subbtn2">TWO</button>'),
    )
    assert plan.template == "Click button {button_name}, then click button {button_name_2}."
    names = [s.arguments["selector"] for s in plan.steps if s.primitive == "click"]
    assert all(isinstance(n, ByRoleName) for n in names)


def test_a_suggestion_among_several_is_a_judgement_but_a_lone_submit_is_not() -> None:
    suggestions = dom(
        "c4",
        '[7] textbox "Tags:" id=tags value="Sa"',
        '[25] div "Saint Helena" id=ui-id-2 (clickable)',
        '[33] div "San Marino" id=ui-id-6 (clickable)',
    )
    plan = plan_of(
        'Enter an item that starts with "Sa" and ends with "ino".',
        dom("c2", '[7] textbox "Tags:" id=tags'),
        typed("c3", 7, "Sa", '<input id="tags">'),
        suggestions,
        click("c5", 33, '<div id="ui-id-6">San Marino</div>'),
    )
    assert plan.ended_because == "choosing the element 'San Marino' was a choice among page content"
    assert not plan.complete
