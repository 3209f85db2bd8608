"""A stored skill written out as a plain Playwright script (Python, async) a person owns.

The script imports Playwright and the standard library only: it does the skill's steps
in order with plain locators (``get_by_role`` with a name, ``get_by_label``,
``get_by_placeholder``, ``locator``), takes the start page and each parameter as options
(``search_term`` as ``--search-term``) and prints the final page's address. It is built
as a libcst tree from the skill's stored plan: every value from the plan (names, page
text, addresses) enters it as a string-literal node, never as code.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.helpers import parse_template_expression, parse_template_statement

from browser_agent.errors import UserError
from browser_agent.plans.codegen import (
    built_address,
    docstring,
    identifier,
    keyword_arg,
    named_with_words,
    names_in,
    string,
)
from browser_agent.plans.plan import (
    BuiltUrl,
    ByRoleName,
    Cased,
    NthOfRole,
    Param,
    PlannedStep,
    SkillPlan,
)
from browser_agent.plans.plan_data import START_URL

if TYPE_CHECKING:
    from sqlalchemy import Engine

# Options of the script itself, which no parameter may take.
SCRIPT_OPTIONS = frozenset({"start_url", "headless", "executable_path", "storage_state"})
_ROLE = re.compile(r'^role=([a-z]+)\[name=("(?:[^"\\]|\\.)*")\]$')
_ATTRIBUTE = re.compile(r'^[a-z]+\[(aria-label|placeholder)=("(?:[^"\\]|\\.)*")\]$')

_ARGUMENTS = '''
def arguments() -> argparse.Namespace:
    """The page to start from, the skill's parameters and how to launch Chromium."""
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument(
        "--start-url", dest="start_url", default=START, help="The page the steps start from."
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--headless", dest="headless", action="store_true", default=True,
        help="Run Chromium without a window (the default).",
    )
    shown.add_argument(
        "--headed", dest="headless", action="store_false", help="Show Chromium's window."
    )
    parser.add_argument(
        "--executable-path", dest="executable_path", default=None,
        help="The Chromium to launch (default: Playwright's own).",
    )
    parser.add_argument(
        "--storage-state", dest="storage_state", default=None,
        help="A Playwright storage state to start from (a login kept in a file).",
    )
    return parser.parse_args()
'''

_CHOOSE = '''
def plain(text: str) -> str:
    """Only the letters and digits of ``text``, lower-cased."""
    return "".join(c for c in text.lower() if c.isalnum())


async def choose(field: Locator, wanted: str) -> None:
    """Choose the drop-down's option whose value or label is ``wanted`` (else whose
    letters and digits are)."""
    script = "options => options.map(o => [o.value, o.label])"
    options = await field.locator("option").evaluate_all(script)
    match = next((v for v, label in options if wanted in (v, label)), None)
    if match is None:
        match = next((v for v, label in options if plain(wanted) in (plain(v), plain(label))), None)
    if match is None:
        raise SystemExit(f"The drop-down has no option {wanted!r}.")
    await field.select_option(value=match)
'''

_STEPS = "async def steps(page: Page, args: argparse.Namespace) -> None:\n    pass\n"

_MAIN = '''
async def main() -> None:
    """Launch Chromium, do the steps and print the final page's address."""
    args = arguments()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            headless=args.headless, executable_path=args.executable_path
        )
        context = await browser.new_context(storage_state=args.storage_state)
        page = await context.new_page()
        await steps(page, args)
        print(page.url)
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
'''


class CannotExport(UserError):
    """A skill with a step no plain script can do, or no such skill; one line."""


def _refuse(number: int, step: PlannedStep, why: str) -> CannotExport:
    return CannotExport(f"Cannot export step {number} ({step.primitive}): {why}.")


def _arg(param: Param) -> cst.BaseExpression:
    """``args.<name>``: the option's value (a whole number made text where text goes)."""
    value = cst.Attribute(cst.Name("args"), identifier(param.name))
    if param.kind == "int":
        return cst.Call(cst.Name("str"), [cst.Arg(value)])
    return value


def _text(value: Any, number: int, step: PlannedStep) -> cst.BaseExpression:
    """Text to type or an option to choose: a parameter's value or a literal."""
    if isinstance(value, Cased) and isinstance(value.case, str):
        method = "upper" if value.case == "upper" else "lower"
        return cst.Call(cst.Attribute(_arg(value.param), cst.Name(method)))
    if isinstance(value, Param) and value.kind in ("str", "int"):
        return _arg(value)
    if isinstance(value, str) and not isinstance(value, Param):
        return string(value)
    raise _refuse(number, step, f"its value {_kind(value)} has no plain-script form")


def _kind(value: Any) -> str:
    if isinstance(value, Param):
        return f"(a {value.kind} parameter {value.name!r})"
    return f"({type(value).__name__})"


def _url(value: Any, start_url: str) -> cst.BaseExpression:
    """An address to open: the start page, or built from its pieces (each parameter
    URL-quoted), joined to ``--start-url`` when it is on the start page's site."""
    start = cst.Attribute(cst.Name("args"), cst.Name("start_url"))
    if isinstance(value, Param) and value.name == START_URL:
        return start
    parts = value.parts if isinstance(value, BuiltUrl) else [value]
    return built_address(parts, start_url, _arg, start)


def _locator(step: PlannedStep, key: str, number: int) -> cst.BaseExpression:
    """A plain Playwright locator for the step's element: by role and a parameter's name,
    by role and name, by label or placeholder, else by the recorded selector."""
    value = step.arguments.get(key)
    if isinstance(value, ByRoleName) and value.param.kind in ("list", "path"):
        raise _refuse(number, step, f"it runs once per item of {value.param.name!r}")
    if isinstance(value, NthOfRole):
        raise _refuse(number, step, "it picks an element by its place among others")
    if isinstance(value, ByRoleName):
        name = named_with_words(value, _arg(value.param))
        if value.within:  # the value within the item's name, its own words around it
            return _call("get_by_role", string(value.role), name=name)
        return _call("get_by_role", string(value.role), name=name, exact=True)
    selector = value if isinstance(value, str) else step.targets[key].selector
    if found := _ROLE.match(selector):
        name = string(json.loads(found.group(2)))
        return _call("get_by_role", string(found.group(1)), name=name, exact=True)
    if found := _ATTRIBUTE.match(selector):
        method = "get_by_label" if found.group(1) == "aria-label" else "get_by_placeholder"
        return _call(method, string(json.loads(found.group(2))), exact=True)
    return _call("locator", string(selector))


def _call(method: str, first: cst.BaseExpression, **keywords: Any) -> cst.Call:
    """``page.<method>(first, keyword=...)`` (True as the name True)."""
    args = [cst.Arg(first)]
    for name, value in keywords.items():
        node = cst.Name("True") if value is True else value
        args.append(keyword_arg(name, node))
    return cst.Call(cst.Attribute(cst.Name("page"), cst.Name(method)), args)


def _act(target: cst.BaseExpression, method: str, *args: cst.BaseExpression) -> cst.Await:
    """``await <target>.<method>(args)``."""
    call = cst.Call(cst.Attribute(target, cst.Name(method)), [cst.Arg(a) for a in args])
    return cst.Await(call)


def _awaits(step: PlannedStep, number: int, start_url: str) -> list[cst.Await]:
    """The Playwright calls of one step, in order."""
    name = step.primitive
    if name == "open_url":
        return [_act(cst.Name("page"), "goto", _url(step.arguments.get("url"), start_url))]
    if name == "go_back":
        return [_act(cst.Name("page"), "go_back")]
    if name == "press_key_combination":
        keys = _text(step.arguments.get("keys"), number, step)
        return [_act(parse_template_expression("page.keyboard"), "press", keys)]
    if name in ("click", "hover"):
        return [_act(_locator(step, "selector", number), name)]
    if name == "select_option":
        field = _locator(step, "selector", number)
        option = _text(step.arguments.get("option"), number, step)
        return [cst.Await(cst.Call(cst.Name("choose"), [cst.Arg(field), cst.Arg(option)]))]
    if name in ("enter_text", "enter_text_and_click"):
        return _typed(step, number)
    raise _refuse(number, step, "no plain Playwright call does what it does")


def _typed(step: PlannedStep, number: int) -> list[cst.Await]:
    """Typing into a field (and Enter, or a click after it)."""
    if step.arguments.get("append") is True:
        raise _refuse(number, step, "it adds its text after what the field holds")
    key = "text_selector" if step.primitive == "enter_text_and_click" else "selector"
    field = _locator(step, key, number)
    calls = [_act(field, "fill", _text(step.arguments.get("text"), number, step))]
    if step.arguments.get("press_enter") is True:
        calls.append(_act(_locator(step, key, number), "press", string("Enter")))
    if step.primitive == "enter_text_and_click":
        calls.append(_act(_locator(step, "click_selector", number), "click"))
    return calls


def _step(step: PlannedStep, number: int, start_url: str) -> list[cst.BaseStatement]:
    """One step's statements: its calls, the last one inside ``expect_navigation`` when
    the step moved the page on, after a dialog handler when it raised one that asked."""
    calls = _awaits(step, number, start_url)
    statements: list[cst.BaseStatement] = [cst.SimpleStatementLine([cst.Expr(c)]) for c in calls]
    if step.navigated_to is not None and step.primitive != "open_url":
        waiting = cst.WithItem(parse_template_expression("page.expect_navigation()"))
        last = cst.With(
            [waiting], cst.IndentedBlock([statements[-1]]), asynchronous=cst.Asynchronous()
        )
        statements[-1] = last
    if step.accept_dialogs is not None:
        answer = "accept" if step.accept_dialogs else "dismiss"
        handler = parse_template_statement(
            f'page.once("dialog", lambda dialog: dialog.{answer}())\n'
        )
        statements.insert(0, handler)
    return statements


def _add_argument(param: Param) -> cst.BaseStatement:
    """``parser.add_argument("--search-term", dest=..., required=True, help=...)``."""
    if param.name in SCRIPT_OPTIONS:
        raise CannotExport(
            f"Cannot export: the parameter {param.name!r} is an option of the script."
        )
    option = "--" + param.name.replace("_", "-")
    keywords = [
        keyword_arg("dest", string(param.name)),
        keyword_arg("required", cst.Name("True")),
        keyword_arg("help", string(param.description or param.name)),
    ]
    if param.kind == "int":
        keywords.insert(1, keyword_arg("type", cst.Name("int")))
    call = cst.Call(
        cst.Attribute(cst.Name("parser"), cst.Name("add_argument")),
        [cst.Arg(string(option)), *keywords],
    )
    return cst.SimpleStatementLine([cst.Expr(call)])


def _arguments_function(plan: SkillPlan, summary: str) -> cst.FunctionDef:
    """``arguments()``: the fixed options, with one per parameter before ``return``."""
    for param in plan.params:
        if param.kind not in ("str", "int"):
            raise CannotExport(
                f"Cannot export: the parameter {param.name!r} is a {param.kind}, "
                "which a plain script does not take."
            )
    function = cst.parse_module(_ARGUMENTS).body[0]
    assert isinstance(function, cst.FunctionDef)
    function = function.visit(
        _Literals({"DESCRIPTION": string(summary), "START": string(plan.start_url)})
    )
    body = list(function.body.body)
    body[-1:-1] = [_add_argument(p) for p in plan.params]
    return function.with_changes(body=function.body.with_changes(body=body))


class _Literals(cst.CSTTransformer):
    """Puts string-literal nodes where a fixed template names a placeholder."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.values.get(updated_node.value, updated_node)


def script_for(plan: SkillPlan, name: str, version: int) -> str:
    """The source of the plain Playwright script doing ``plan``'s steps;
    CannotExport (one line, naming the step) when a step has no plain form."""
    summary = plan.template[:1].upper() + plan.template[1:]
    body: list[cst.BaseStatement] = []
    for number, step in enumerate(plan.steps, start=1):
        body.extend(_step(step, number, plan.start_url))
    steps_doc = cst.SimpleStatementLine([cst.Expr(docstring("The skill's steps, in order."))])
    steps = cst.parse_statement(_STEPS)
    assert isinstance(steps, cst.FunctionDef)
    steps = steps.with_changes(body=cst.IndentedBlock([steps_doc, *body]))
    chooses = any(s.primitive == "select_option" for s in plan.steps)
    imports = ["import argparse", "import asyncio"]
    uses = cst.Module(body=body)
    named = names_in(uses)
    url_names = [n for n in ("quote", "urljoin") if n in named]
    if url_names:
        imports.append(f"from urllib.parse import {', '.join(url_names)}")
    playwright = (
        ["Locator", "Page", "async_playwright"] if chooses else ["Page", "async_playwright"]
    )
    header = "\n".join(imports) + f"\n\nfrom playwright.async_api import {', '.join(playwright)}\n"
    doc = (
        f"Skill {name} v{version}, as a plain Playwright script: {summary}\n\n"
        "Run it with --start-url and one option per parameter; it prints the final page's "
        "address.\n"
    )
    module = cst.parse_module(header)
    parts: list[Any] = [
        cst.SimpleStatementLine([cst.Expr(docstring(doc))]),
        *_spaced(module.body, 1),
    ]
    parts.append(
        _arguments_function(plan, summary).with_changes(leading_lines=[cst.EmptyLine()] * 2)
    )
    if chooses:
        parts.extend(_spaced(cst.parse_module(_CHOOSE).body, 2))
    parts.append(steps.with_changes(leading_lines=[cst.EmptyLine()] * 2))
    parts.extend(_spaced(cst.parse_module(_MAIN).body, 2))
    code = cst.Module(body=parts).code
    compile(code, "<exported skill>", "exec")  # never write a script that does not parse
    return code


def _spaced(statements: Any, blank_lines: int) -> list[Any]:
    """The statements with ``blank_lines`` empty lines before the first."""
    statements = list(statements)
    if statements:
        statements[0] = statements[0].with_changes(leading_lines=[cst.EmptyLine()] * blank_lines)
    return statements


def exported_script(engine: Engine, name: str, version: int | None = None) -> str:
    """The plain script of the skill ``name`` (its current version, or ``version``);
    CannotExport (one line) for no such skill or version, or a step it cannot export."""
    from browser_agent.plans.plan_data import PlanInvalid, read_plan
    from browser_agent.store.skills import skill_by_name, versions_of

    if version is None:
        skill = skill_by_name(engine, name)
    else:
        skill = next((s for s in versions_of(engine, name) if s.version == version), None)
    if skill is None:
        which = f"{name!r} v{version}" if version is not None else repr(name)
        raise CannotExport(f"No skill {which}: see browser-agent skills for the names.")
    if not skill.plan:
        raise CannotExport(
            f"Cannot export {name}: it was made before plans were kept; harvest it again."
        )
    try:
        plan = read_plan(skill.plan)
    except PlanInvalid as exc:
        raise CannotExport(f"Cannot export {name}: {exc}.") from None
    return script_for(plan, name, skill.version)
