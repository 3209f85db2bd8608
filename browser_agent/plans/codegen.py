"""Generating a skill module from a SkillPlan, as a libcst syntax tree.

Every value that came from a log (page text, commands, typed text, selectors) enters the
tree as a string-literal node, so no quote, newline or code inside it can change what the
generated module does. Identifiers are made by ``snake`` and checked before use.
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any
from urllib.parse import unquote_plus, urlsplit

import libcst as cst
from libcst.helpers import parse_template_expression, parse_template_statement

from browser_agent.plans.partial import partial_sentence
from browser_agent.plans.plan import (
    RESERVED_NAMES,
    BuiltUrl,
    ByRoleName,
    Cased,
    NthOfRole,
    Param,
    PlannedStep,
    SkillPlan,
    snake,
)
from browser_agent.skills.primitive import PRIMITIVES
from browser_agent.words.text_match import normal, shows

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STOPWORDS = {
    "the",
    "a",
    "an",
    "in",
    "on",
    "to",
    "by",
    "for",
    "and",
    "of",
    "with",
    "at",
    "from",
    "as",
    "then",
    "please",
    "my",
    "me",
    "it",
    "its",
    "this",
    "that",
    "into",
    "onto",
    "up",
}


def identifier(name: str) -> cst.Name:
    """A Name node, refusing anything that is not a plain, non-keyword identifier."""
    if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise ValueError(f"not a safe identifier: {name!r}")
    return cst.Name(name)


def string(value: str) -> cst.SimpleString:
    """A string literal node holding exactly ``value``."""
    return cst.SimpleString(repr(value))


def docstring(text: str, indent: str = "") -> cst.SimpleString:
    """A readable triple-quoted docstring when ``text`` allows it, else a plain literal."""
    safe = all(c.isprintable() or c == "\n" for c in text)
    if safe and "\\" not in text and '"' not in text:
        lines = text.strip().splitlines()
        body = "\n".join([lines[0], *[f"{indent}{line}" if line else "" for line in lines[1:]]])
        closing = f"\n{indent}" if len(lines) > 1 else ""
        return cst.SimpleString(f'"""{body}{closing}"""')
    return string(text)


def skill_name(template: str) -> str:
    """snake_case verb_object name from the command template (a lone verb takes the first
    parameter as its object: ``find {search_term}`` is ``find_search_term``)."""
    params = re.findall(r"\{(\w+)\}", template)
    plain = re.sub(r"\{[^}]*\}", " ", template.lower())
    words = [w for w in re.findall(r"[a-z]+", plain) if w not in _STOPWORDS][:4]
    if len(words) < 2:
        words += params[:1] or ["task"]
    name = snake(" ".join(words))
    return f"{name}_skill" if name in RESERVED_NAMES else name


_NO_SPACE = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value`` as PEP 8 writes keyword arguments."""
    return cst.Arg(value, keyword=identifier(name), equal=_NO_SPACE)


def _one_per_line(count: int, index: int, indent: str = "    ") -> cst.Comma:
    """The comma after item ``index`` of ``count``, putting each item on its own line."""
    last = index == count - 1
    return cst.Comma(
        whitespace_after=cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(),
            indent=False,
            last_line=cst.SimpleWhitespace("" if last else indent),
        )
    )


def _url(value: BuiltUrl, start_url: str) -> cst.BaseExpression:
    """The address built from its pieces, each parameter URL-quoted; on the start page's
    site, joined to ``start_url`` so the skill follows the site wherever it is served."""
    return built_address(
        value.parts, start_url, lambda param: identifier(param.name), cst.Name("start_url")
    )


def built_address(
    parts: Sequence[str | Param],
    start_url: str,
    param_value: Callable[[Param], cst.BaseExpression],
    base: cst.BaseExpression,
) -> cst.BaseExpression:
    """``parts`` added up, each parameter's ``param_value`` URL-quoted; a first piece on the
    start page's site is made relative and joined to ``base`` (the start page as the made
    code knows it), so the code follows the site wherever it is served."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(start_url))
    pieces: list[cst.BaseExpression] = []
    joined = False
    for index, part in enumerate(parts):
        if isinstance(part, Param):
            value = param_value(part)
            pieces.append(parse_template_expression("quote(str({v}), safe='')", v=value))
            continue
        if index == 0 and start_url and part.startswith(origin + "/"):
            part, joined = part[len(origin) :], True
        pieces.append(string(part))
    built = pieces[0]
    for piece in pieces[1:]:
        built = cst.BinaryOperation(built, cst.Add(), piece)
    if not joined:
        return built
    return parse_template_expression("urljoin({base}, {path})", base=base, path=built)


def _value(value: Any) -> cst.BaseExpression:
    if isinstance(value, Cased):
        case = identifier(value.case.name) if isinstance(value.case, Param) else string(value.case)
        return parse_template_expression(
            "with_case({text}, {case})", text=identifier(value.param.name), case=case
        )
    if isinstance(value, Param) and value.kind == "int":
        return parse_template_expression("str({name})", name=identifier(value.name))
    if isinstance(value, Param):
        return identifier(value.name)
    if isinstance(value, bool):
        return cst.Name("True" if value else "False")
    if isinstance(value, int):
        return cst.Integer(str(value))
    if isinstance(value, float):
        return cst.Float(repr(value))
    if isinstance(value, str):
        return string(value)
    raise ValueError(f"cannot put a {type(value).__name__} into a skill")


_TARGET = """\
STEP = Target(
    step=0,
    selector=0,
    role=0,
    name=0,
    tag=0,
    text=0,
    attributes=0,
    xpath=0,
    near=0,
    among=0,
    intent=0,
)
"""


@cache
def _target_line() -> cst.SimpleStatementLine:
    """A target constant's statement as the module writes it, its values still to fill."""
    line = cst.parse_statement(_TARGET)
    assert isinstance(line, cst.SimpleStatementLine)
    return line


def _target_constant(name: str, step: int, key: str, planned: PlannedStep) -> cst.BaseStatement:
    record = planned.targets[key]
    attributes = cst.Dict(
        [cst.DictElement(string(k), string(v)) for k, v in sorted(record.attributes.items())]
    )
    values: dict[str, cst.BaseExpression] = {
        "step": cst.Integer(str(step)),
        "selector": string(record.selector),
        "role": string(record.role),
        "name": string(record.name),
        "tag": string(record.tag),
        "text": string(record.text),
        "attributes": attributes,
        "xpath": string(record.xpath),
        "near": string(str(record.context.get("heading", ""))),
        "among": cst.Integer(str(int(record.context.get("index", 0)))),
        "intent": string(f"{planned.primitive} on the {record.role} {record.name!r}"),
    }
    line = _target_line()
    assign = line.body[0]
    assert isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call)
    args = [
        arg.with_changes(value=values[arg.keyword.value])
        for arg in assign.value.args
        if arg.keyword is not None
    ]
    target = assign.targets[0].with_changes(target=identifier(name))
    filled = assign.with_changes(targets=[target], value=assign.value.with_changes(args=args))
    return line.with_changes(body=[filled])


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.add(node.value)


def names_in(tree: cst.CSTNode) -> set[str]:
    """Every name that a Name node anywhere in ``tree`` holds."""
    names = _Names()
    tree.visit(names)
    return names.seen


ITEM = "item"  # the loop variable of a step that runs once per item of a list parameter


def _finder(target: str, value: Any, looped: Param | None) -> cst.BaseExpression:
    """``await find(STEP_n)``, by a name parameter (or the loop's item), or by position."""
    if isinstance(value, ByRoleName):
        given = identifier(ITEM) if looped is value.param else identifier(value.param.name)
        name = named_with_words(value, given)
        if value.within:
            return parse_template_expression(
                "await find({target}, name={name}, within=True)",
                target=identifier(target),
                name=name,
            )
        return parse_template_expression(
            "await find({target}, name={name})", target=identifier(target), name=name
        )
    if isinstance(value, NthOfRole):
        return parse_template_expression(
            "await find({target}, nth={position})",
            target=identifier(target),
            position=identifier(value.param.name),
        )
    return parse_template_expression("await find({target})", target=identifier(target))


def named_with_words(value: ByRoleName, name: cst.BaseExpression) -> cst.BaseExpression:
    """The element's name as code: the value, with the site's words around it when the
    plan kept some (``'Milestone ' + name + ''``)."""
    if not (value.before or value.after):
        return name
    return parse_template_expression(
        "{before} + {name} + {after}",
        before=string(value.before),
        name=name,
        after=string(value.after),
    )


def _looped(planned: PlannedStep) -> Param | None:
    """The list or path parameter a step runs over, if any."""
    for value in planned.arguments.values():
        if isinstance(value, ByRoleName) and value.param.kind in ("list", "path"):
            return value.param
    return None


def _checks(planned: PlannedStep, examples: tuple[str, ...] = ()) -> list[cst.Arg]:
    """The effects ``expect`` checks after the step: the field holds the value, the box is
    ticked, the option chosen, the page moved on or changed as it did when recorded (to
    the same path, unless the path holds one of the command's ``examples``: it varies)."""
    checks = []
    from_command = any(
        isinstance(v, Param | ByRoleName | NthOfRole | Cased) for v in planned.arguments.values()
    )
    if planned.primitive == "enter_text" and "text" in planned.arguments:
        checks.append(keyword_arg("value", _value(planned.arguments["text"])))
        if planned.arguments.get("append") is True:
            checks.append(keyword_arg("added", cst.Name("True")))
    if planned.primitive == "select_option" and "option" in planned.arguments:
        checks.append(keyword_arg("selected", _value(planned.arguments["option"])))
    if planned.checked:
        checks.append(keyword_arg("checked", cst.Name("True")))
    if planned.navigated_to is not None and not (from_command or planned.path_varies):
        from_command = _holds_value(urlsplit(planned.navigated_to).path, examples)
    if planned.navigated_to is not None and not (from_command or planned.path_varies):
        checks.append(keyword_arg("navigated_to", string(urlsplit(planned.navigated_to).path)))
    elif planned.navigated_to is not None:
        checks.append(keyword_arg("navigated", cst.Name("True")))
    elif planned.appeared:
        checks.append(keyword_arg("appeared", cst.Name("True")))
    return checks


def _holds_value(path: str, examples: tuple[str, ...]) -> bool:
    """Whether an address's path holds one of the command's values (as words or a slug)."""
    said = normal(unquote_plus(path))
    return any(len(normal(v)) > 2 and shows(said, normal(v)) for v in examples)


def _by_address(address: BuiltUrl, start_url: str, statements: list[cst.BaseStatement]) -> cst.With:
    """``async with by_address(<address>):`` around ``statements`` (see skills.runtime)."""
    call = cst.Call(cst.Name("by_address"), [cst.Arg(_url(address, start_url))])
    block = cst.IndentedBlock(statements)
    return cst.With([cst.WithItem(call)], block, asynchronous=cst.Asynchronous())


def _step_statements(
    step: int,
    planned: PlannedStep,
    names: dict[str, str],
    start_url: str,
    examples: tuple[str, ...] = (),
) -> list:
    """The statements of one step, inside ``with answering_dialogs(...)`` when the step
    raised a dialog that asked, so the skill answers it as the recorded run did."""
    statements = _step_body(step, planned, names, start_url, examples)
    if planned.address is not None:  # the button gone, where it went is opened instead
        statements = [_by_address(planned.address, start_url, statements)]
    if planned.accept_dialogs is None:
        return statements
    answering = parse_template_expression(
        "answering_dialogs(accept={accept})",
        accept=cst.Name("True" if planned.accept_dialogs else "False"),
    )
    return [cst.With(items=[cst.WithItem(answering)], body=cst.IndentedBlock(statements))]


def _step_body(
    step: int,
    planned: PlannedStep,
    names: dict[str, str],
    start_url: str,
    examples: tuple[str, ...] = (),
) -> list:
    """The guarded primitive call, then its effect check; once per item when the step
    runs over a list parameter."""
    fn = PRIMITIVES[planned.primitive]
    allowed = set(inspect.signature(fn).parameters)
    looped = _looped(planned)
    args: list[cst.Arg] = []
    for key, value in planned.arguments.items():
        if key not in allowed:
            raise ValueError(f"{planned.primitive} has no parameter {key!r}")
        if key in planned.targets:
            args.append(keyword_arg(key, _finder(names[key], value, looped)))
        elif isinstance(value, BuiltUrl):
            args.append(keyword_arg(key, _url(value, start_url)))
        else:
            args.append(keyword_arg(key, _value(value)))
    call = cst.Await(cst.Call(identifier(planned.primitive), args))
    if planned.primitive == "open_url":
        return [cst.SimpleStatementLine([cst.Expr(call)])]
    if looped is not None and looped.kind == "path":
        return [_path_loop(planned, names, looped, examples)]
    first_target = identifier(names[next(iter(planned.targets))]) if planned.targets else None
    checks = _checks(planned, examples)
    if not checks:
        body = [cst.SimpleStatementLine([cst.Expr(call)])]
    else:
        said = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("said"))], call)])
        expect_args = [cst.Arg(first_target or cst.Name("None")), cst.Arg(cst.Name("said"))]
        expect = cst.Expr(cst.Await(cst.Call(cst.Name("expect"), [*expect_args, *checks])))
        body = [said, cst.SimpleStatementLine([expect])]
    if looped is None:
        return body
    loop = cst.For(
        target=identifier(ITEM), iter=identifier(looped.name), body=cst.IndentedBlock(body)
    )
    return [loop]


def _path_loop(
    planned: PlannedStep, names: dict[str, str], path: Param, examples: tuple[str, ...] = ()
) -> cst.BaseStatement:
    """Open each item of a menu path by pointing at it, and click the last one."""
    key = next(iter(planned.targets))
    checks = _checks(planned, examples)
    last_act = "click" if planned.primitive == "click" else "hover"
    template = (
        "for {item}, last in path_items({path}):\n"
        "    target = await find({step}, name={item})\n"
        f"    said = await {last_act}(selector=target) if last else await hover(selector=target)\n"
    )
    if checks:
        template += "    if last:\n        await expect({step}, said, {checks})\n"
    statement = parse_template_statement(
        template.replace("{checks}", "CHECKS"),
        item=identifier(ITEM),
        path=identifier(path.name),
        step=identifier(names[key]),
    )
    if not checks:
        return statement
    return statement.visit(_FillChecks(checks))  # type: ignore[return-value]


class _FillChecks(cst.CSTTransformer):
    """Puts the check keywords where the template says CHECKS."""

    def __init__(self, checks: list[cst.Arg]) -> None:
        self.checks = checks

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if _is_name(updated_node.func, "expect"):
            args = [a for a in updated_node.args if not _is_name(a.value, "CHECKS")]
            return updated_node.with_changes(args=[*args, *self.checks])
        return updated_node


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _signature(plan: SkillPlan) -> cst.Parameters:
    params = []
    for param in plan.params:
        kind = {"int": "int", "list": "list[str]"}.get(param.kind, "str")
        annotation = parse_template_expression(
            f"Annotated[{kind}, {{description}}]", description=string(param.description)
        )
        params.append(cst.Param(identifier(param.name), cst.Annotation(annotation), star=""))
    start = parse_template_expression(
        "Annotated[str, {description}]",
        description=string("The page the skill starts from (the site's address)."),
    )
    params.append(
        cst.Param(
            cst.Name("start_url"),
            cst.Annotation(start),
            default=string(plan.start_url),
            equal=cst.AssignEqual(),
        )
    )
    laid_out = [p.with_changes(comma=_one_per_line(len(params), i)) for i, p in enumerate(params)]
    return cst.Parameters(params=laid_out)


def _function_doc(plan: SkillPlan, summary: str) -> str:
    lines = [summary, "", f"Harvested from the command {plan.command!r}.", ""]
    if plan.lacks:
        lines += [partial_sentence(plan.lacks), ""]
    lines += ["Args:"]
    lines += [f"    {p.name}: {p.description}" for p in plan.params]
    lines += [
        "    start_url: The page the skill starts from.",
        "",
        "Returns:",
        "    What was done and the final page URL.",
    ]
    return "\n".join(lines)


def generate_module(plan: SkillPlan, name: str) -> str:
    """Source code of the skill module for ``plan``, with one async function ``name``; a
    partial skill's docstring and answer say only the part of the command it does."""
    said = plan.done_template if plan.lacks and plan.done_template else plan.template
    summary = said[:1].upper() + said[1:]
    if not summary.endswith("."):
        summary += "."
    function, constants, named = _function(plan, name, summary)
    header = [cst.EmptyLine(comment=cst.Comment("# ruff: noqa: E501"))]
    if plan.note:  # one line: a comment can hold no line break
        header.append(cst.EmptyLine(comment=cst.Comment(f"# {' '.join(plan.note.split())}")))
    about = (
        f"Harvested skill {name}: {said}\n\n"
        f"Generated from run {plan.source}; harvest again, do not edit.\n"
    )
    module = cst.Module(
        header=header,
        body=[
            cst.SimpleStatementLine([cst.Expr(docstring(about))]),
            *_imports(plan, named, bool(constants)),
            *[_spaced(c, 1) for c in constants],
            _spaced(function, 2),
        ],
    )
    code = module.code
    compile(code, "<harvested skill>", "exec")  # never write a module that does not parse
    return code


def _function(
    plan: SkillPlan, name: str, summary: str
) -> tuple[cst.FunctionDef, list[cst.BaseStatement], set[str]]:
    """The skill's async function, the Target constants its steps find elements by, and
    the names its body uses (for the imports)."""
    examples = tuple(str(p.example) for p in plan.params if isinstance(p.example, str | int))
    constants: list[cst.BaseStatement] = []
    body: list[cst.BaseStatement] = [
        cst.SimpleStatementLine([cst.Expr(docstring(_function_doc(plan, summary), "    "))])
    ]
    steps: list[cst.BaseStatement] = []
    for number, planned in enumerate(plan.steps, start=1):
        step_names = {}
        for key in planned.targets:
            suffix = "" if len(planned.targets) == 1 else f"_{key.split('_')[0].upper()}"
            constant = f"STEP_{number}{suffix}"
            step_names[key] = constant
            constants.append(_target_constant(constant, number, key, planned))
        steps.extend(_step_statements(number, planned, step_names, plan.start_url, examples))
    if plan.end_address is None:
        body.extend(steps)
    else:  # where its steps no longer fit the page, its end is opened by its address
        body.append(_by_address(plan.end_address, plan.start_url, steps))
    filled_in = [keyword_arg(p.name, identifier(p.name)) for p in plan.params]
    done_call = cst.Call(cst.Name("done"), [cst.Arg(string(summary)), *filled_in])
    body.append(cst.SimpleStatementLine([cst.Return(cst.Await(done_call))]))
    function = cst.FunctionDef(
        whitespace_before_params=cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(), last_line=cst.SimpleWhitespace("    ")
        ),
        name=identifier(name),
        params=_signature(plan),
        body=cst.IndentedBlock(body),
        returns=cst.Annotation(cst.Name("str")),
        asynchronous=cst.Asynchronous(),
    )
    return function, constants, set(names_in(cst.Module(body=body)))


def _imports(plan: SkillPlan, named: set[str], targets: bool) -> list[cst.BaseStatement]:
    """The module's imports: typing's Annotated, urllib's helpers the body uses, the
    primitives its steps call and the runtime's helpers (Target when it has constants)."""
    used = {s.primitive for s in plan.steps}
    if any((p := _looped(s)) is not None and p.kind == "path" for s in plan.steps):
        used |= {"click", "hover"}
    helpers = (
        "answering_dialogs", "by_address", "done", "expect", "find", "path_items", "with_case"
    )  # fmt: skip
    runtime_names = [n for n in helpers if n in named]
    if targets:
        runtime_names.insert(0, "Target")
    standard = [parse_template_statement("from typing import Annotated\n")]
    url_helpers = [n for n in ("quote", "urljoin") if n in named]
    if url_helpers:
        standard.append(_import_from("urllib.parse", [cst.Name(n) for n in url_helpers]))
    primitives = _import_from(
        "browser_agent.skills.primitive", [identifier(n) for n in sorted(used)]
    )
    runtime = _import_from("browser_agent.skills.runtime", [cst.Name(n) for n in runtime_names])
    return [_spaced(standard[0], 1), *standard[1:], _spaced(primitives, 1), runtime]


def _import_from(module: str, names: list[cst.Name]) -> cst.SimpleStatementLine:
    """``from module import names``."""
    aliases = [cst.ImportAlias(name) for name in names]
    return cst.SimpleStatementLine(
        [cst.ImportFrom(module=cst.parse_expression(module), names=aliases)]
    )


def _spaced(statement: cst.BaseStatement, blank_lines: int) -> cst.BaseStatement:
    """The statement with ``blank_lines`` empty lines before it, as PEP 8 lays out modules."""
    return statement.with_changes(leading_lines=[cst.EmptyLine()] * blank_lines)
