"""A script ``playwright codegen`` wrote (``--target python-async`` or ``python``), taught as
a demonstration.

The script is read with ``ast`` and never run as Python: its ``run(playwright)`` function's
statements are matched against the shapes codegen writes (``page = await
context.new_page()``, ``await page.goto("...")``, ``await page.get_by_role("button",
name="Submit").click()``, ``fill``, ``press``, ``check``, ``uncheck``, ``select_option``,
``page.once("dialog", lambda dialog: dialog.dismiss())``; ``expect(...)`` checks and the
closing calls are passed over). Its locators may chain ``get_by_role``, ``get_by_label``,
``get_by_placeholder``, ``get_by_text`` and the other ``get_by_*``, ``locator``,
``filter``, ``nth``, ``first``, ``last`` and ``content_frame``, with literal arguments only.
The steps are then played in a headless Chromium while the recorder writes them, exactly
as a person's demonstration is recorded (see ``session``), so they become the same
primitive calls. A line it cannot read is refused naming its line number.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from browser_agent.errors import UserError

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page
    from sqlalchemy import Engine

    from browser_agent.record.save import SavedRecording
    from browser_agent.record.session import Recording
    from browser_agent.settings import Settings

#: What a step may do to the element its locator finds.
ACTIONS = frozenset({"click", "dblclick", "fill", "press", "check", "uncheck", "select_option"})
#: Methods a locator chain may call, and properties it may read.
LOCATOR_METHODS = frozenset(
    {
        "get_by_role",
        "get_by_label",
        "get_by_placeholder",
        "get_by_text",
        "get_by_test_id",
        "get_by_alt_text",
        "get_by_title",
        "locator",
        "frame_locator",
        "filter",
        "nth",
    }
)
LOCATOR_PROPERTIES = frozenset({"first", "last", "content_frame"})
_CLOSING = frozenset({"close", "storage_state"})  # the script's end: nothing to teach
_FLAGS = {"IGNORECASE": re.IGNORECASE}


class UnreadableScript(UserError):
    """A script that is not codegen's shape, or a line of it that cannot be taught."""


@dataclass(frozen=True)
class Link:
    """One link of a locator chain: a method with literal arguments, or a property."""

    name: str
    args: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()
    is_property: bool = False


@dataclass(frozen=True)
class ScriptStep:
    """One statement of the script to play: ``goto``, ``new_page``, ``dialog`` or an
    action on the element its locator chain finds."""

    line: int
    page: str
    action: str
    chain: tuple[Link, ...] = ()
    args: tuple[Any, ...] = ()
    keywords: tuple[tuple[str, Any], ...] = ()


def _refuse(node: ast.AST, why: str) -> UnreadableScript:
    return UnreadableScript(f"Line {getattr(node, 'lineno', 0)} of the script: {why}.")


def _literal(node: ast.expr) -> Any:
    """A literal argument, or a ``re.compile(r"...", re.IGNORECASE)`` pattern."""
    if isinstance(node, ast.Call) and _dotted(node.func) == "re.compile":
        if not node.args or node.keywords or len(node.args) > 2:
            raise _refuse(node, "re.compile takes a pattern and its flags only")
        pattern = _literal(node.args[0])
        flags = _dotted(node.args[1]) if len(node.args) == 2 else ""
        if not isinstance(pattern, str) or (flags and flags.removeprefix("re.") not in _FLAGS):
            raise _refuse(node, "re.compile takes a pattern and re.IGNORECASE only")
        return re.compile(pattern, _FLAGS[flags[3:]] if flags else 0)
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _refuse(node, f"{ast.unparse(node)} is not a literal value") from None


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of names and attributes, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _chain(node: ast.expr, pages: set[str]) -> tuple[str, tuple[Link, ...]]:
    """The page a locator chain starts from and its links, outermost last."""
    links: list[Link] = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute) and node.attr in LOCATOR_PROPERTIES:
            links.append(Link(node.attr, is_property=True))
            node = node.value
            continue
        call = node if isinstance(node, ast.Call) else None
        func = call.func if call else None
        if call is None or not isinstance(func, ast.Attribute) or func.attr not in LOCATOR_METHODS:
            raise _refuse(node, f"{ast.unparse(node)} is not a locator codegen writes")
        args = tuple(_literal(a) for a in call.args)
        keywords = tuple((k.arg or "", _literal(k.value)) for k in call.keywords)
        links.append(Link(func.attr, args, keywords))
        node = func.value
    if node.id not in pages:
        raise _refuse(node, f"{node.id} is not a page the script opened")
    return node.id, tuple(reversed(links))


def _call_of(statement: ast.stmt) -> ast.Call | None:
    """The call a statement makes (``await`` taken off), if it is one."""
    value = statement.value if isinstance(statement, ast.Expr | ast.Assign) else None
    if isinstance(value, ast.Await):
        value = value.value
    return value if isinstance(value, ast.Call) else None


def _dialog(call: ast.Call, page: str) -> ScriptStep | None:
    """``page.once("dialog", lambda dialog: dialog.dismiss())`` (or ``accept()``)."""
    if _dotted(call.func) != f"{page}.once" or len(call.args) != 2:
        return None
    handler = call.args[1]
    if _literal(call.args[0]) != "dialog" or not isinstance(handler, ast.Lambda):
        return None
    answer = _dotted(handler.body.func) if isinstance(handler.body, ast.Call) else ""
    if answer not in ("dialog.dismiss", "dialog.accept"):
        raise _refuse(call, "a dialog is answered by dialog.accept() or dialog.dismiss()")
    return ScriptStep(call.lineno, page, "dialog", args=(answer == "dialog.accept",))


def _statement(statement: ast.stmt, pages: set[str]) -> ScriptStep | None:
    """The step one statement of ``run`` is, None for what teaches nothing."""
    if isinstance(statement, ast.With | ast.AsyncWith):
        raise _refuse(statement, "a popup or a download is not taught (one page per script)")
    call = _call_of(statement)
    if call is None:
        raise _refuse(statement, "not a statement playwright codegen writes")
    name = _dotted(call.func)
    if isinstance(statement, ast.Assign):
        (target,) = statement.targets if len(statement.targets) == 1 else (None,)
        if name.endswith((".launch", ".new_context")) and isinstance(target, ast.Name):
            return None  # the browser and context are ours: headless, fresh
        if name.endswith(".new_page") and isinstance(target, ast.Name):
            if pages:
                raise _refuse(statement, "a second tab is not taught (one page per script)")
            pages.add(target.id)
            return ScriptStep(statement.lineno, target.id, "new_page")
        raise _refuse(statement, "not an assignment playwright codegen writes")
    if _is_expect(call):
        return None  # a check of the page, not a step
    func = call.func
    if not isinstance(func, ast.Attribute):
        raise _refuse(statement, f"{name or ast.unparse(func)}() is not a Playwright call")
    owner = _dotted(func.value)
    if func.attr in _CLOSING and owner in {"browser", "context", *pages}:
        return None
    for page in pages:
        dialog = _dialog(call, page)
        if dialog is not None:
            return dialog
    if owner in pages and func.attr == "goto":
        if len(call.args) != 1 or not isinstance(url := _literal(call.args[0]), str):
            raise _refuse(statement, "goto takes one address")
        return ScriptStep(statement.lineno, owner, "goto", args=(url,))
    if func.attr not in ACTIONS:
        raise _refuse(statement, f"{func.attr}() is not an action that can be taught")
    page, links = _chain(func.value, pages)
    if not links:
        raise _refuse(statement, f"{func.attr}() needs a locator")
    args = tuple(_literal(a) for a in call.args)
    keywords = tuple((k.arg or "", _literal(k.value)) for k in call.keywords)
    return ScriptStep(statement.lineno, page, func.attr, links, args, keywords)


def _is_expect(call: ast.Call) -> bool:
    """``expect(locator).to_have_text(...)`` and the like."""
    func = call.func
    inner = func.value if isinstance(func, ast.Attribute) else None
    return isinstance(inner, ast.Call) and _dotted(inner.func) == "expect"


def read_script(text: str) -> list[ScriptStep]:
    """The steps of a codegen script's ``run`` (or pytest ``test_*``) function, in order;
    UnreadableScript (one line, naming the line) for what it cannot read."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UnreadableScript(
            f"Line {exc.lineno} of the script: not Python ({exc.msg})."
        ) from None
    functions = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.name == "run" or node.name.startswith("test_"))
    ]
    if not functions:
        raise UnreadableScript(
            "The script has no run(playwright) function: give a script playwright codegen "
            "wrote (--target python-async or python)."
        )
    function = functions[0]
    pages = {a.arg for a in function.args.args if a.arg == "page"}  # pytest's page fixture
    steps = [
        step
        for statement in function.body
        if not _is_docstring(statement)
        if (step := _statement(statement, pages)) is not None
    ]
    if not any(step.action in ACTIONS for step in steps):
        raise UnreadableScript("The script does nothing to teach: no click, typing or choice.")
    return steps


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def rebased(url: str, first: str, site: str | None) -> str:
    """``url`` moved to ``site``'s scheme and host when it is on ``first``'s."""
    if not site:
        return url
    here, was, there = urlsplit(url), urlsplit(first), urlsplit(site)
    if (here.scheme, here.netloc) != (was.scheme, was.netloc):
        return url
    return urlunsplit((there.scheme, there.netloc, here.path, here.query, here.fragment))


async def play(
    steps: Sequence[ScriptStep], browser: Browser, settings: Settings, site: str | None = None
) -> Recording:
    """Play the steps in a fresh context of ``browser`` while the recorder writes them;
    UnreadableScript naming the line whose step the page did not let be done."""
    from playwright.async_api import Error as PlaywrightError

    from browser_agent.record.session import record_session
    from browser_agent.sites.policy import openable

    first = next((s.args[0] for s in steps if s.action == "goto"), "")
    addresses = {  # every address checked as open_url checks it, before anything opens
        s.line: openable(rebased(s.args[0], first, site), settings)
        for s in steps
        if s.action == "goto"
    }
    context = await browser.new_context()
    context.set_default_timeout(settings.action_timeout_ms)
    context.set_default_navigation_timeout(settings.navigation_timeout_ms)
    page = await context.new_page()
    try:
        async with record_session(context) as recording:
            for step in steps:
                try:
                    await _do(step, page, addresses.get(step.line, ""))
                except PlaywrightError as exc:
                    said = (str(exc).strip() or type(exc).__name__).splitlines()[0]
                    raise UnreadableScript(
                        f"Line {step.line} of the script could not be done: {said}"
                    ) from None
            await page.wait_for_load_state()
    finally:
        await context.close()
    return recording


async def _do(step: ScriptStep, page: Page, url: str) -> None:
    """One step on the page: open, answer the next dialog, or act on the element."""
    if step.action == "new_page":
        return
    if step.action == "goto":
        await page.goto(url)
        return
    if step.action == "dialog":
        answer = "accept" if step.args[0] else "dismiss"
        page.once("dialog", lambda dialog: getattr(dialog, answer)())
        return
    target: Any = page
    for link in step.chain:
        target = getattr(target, link.name)
        if not link.is_property:
            target = target(*link.args, **dict(link.keywords))
    await getattr(target, step.action)(*step.args, **dict(step.keywords))
    await page.wait_for_load_state()


async def teach_script(
    steps: Sequence[ScriptStep],
    command: str,
    settings: Settings,
    engine: Engine,
    *,
    site: str | None = None,
    browser: Browser | None = None,
) -> tuple[SavedRecording, str | None, str]:
    """Play a codegen script's steps while recording, store them as a run of ``command``
    and harvest it as a recorded demonstration is: the saved run, the skill's name (None
    when none came of it) and one line saying how it went."""
    from browser_agent.browser.session import launched_browser
    from browser_agent.record.save import save_recording
    from browser_agent.record.teach import harvest_saved

    if browser is None:
        async with launched_browser(settings) as own:
            recording = await play(steps, own, settings, site)
    else:
        recording = await play(steps, browser, settings, site)
    try:
        saved = save_recording(recording, command, settings, engine)
    except ValueError as exc:
        raise UnreadableScript(str(exc)) from None
    name, said = await harvest_saved(saved, settings, engine)
    return saved, name, said
