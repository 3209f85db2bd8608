"""The in-page JavaScript library, loaded once from the package."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Locator, Page

from browser_agent.errors import ActionError

#: What the page answers instead of a result when the locator matches no or several elements.
_COUNT = "browserAgentMatches"


@cache
def page_library() -> str:
    """Source of page_library.js: one function expression taking (target?, arg)."""
    return resources.files("browser_agent.dom").joinpath("page_library.js").read_text("utf-8")


#: The window property where a document keeps the library once it has it: named anew by
#: each process, so no page can take the name first, and read-only, so none can replace it.
_HELD = json.dumps(f"__browserAgentLibrary{secrets.token_hex(8)}")
#: What the page answers when it does not hold the library yet.
_MISSING = "browserAgentMissing"


@cache
def holding_script() -> str:
    """A script that gives the document it runs in the library, read-only; a session's
    context runs it in each new document, so reading a page sends a few words, not the
    library's 40 kB that the page would compile again."""
    return _holding("(" + page_library() + ")")


def _holding(library: str) -> str:
    """A statement keeping ``library`` on the page where it does not hold one already."""
    return f"try {{ Object.defineProperty(window, {_HELD}, {{ value: {library} }}); }} catch {{}}"


@cache
def _called(held: bool) -> str:
    """``(first, second) => library(first, second)``: by the library the page holds when
    ``held`` (else what it answers when it has none), or else by the library sent along,
    which the page then keeps."""
    if held:
        missing = json.dumps({_MISSING: True})
        return (
            f"(first, second) => typeof window[{_HELD}] === 'function' ? "
            f"window[{_HELD}](first, second) : {missing}"
        )
    return (
        f"(first, second) => {{ const library = ({page_library()}); {_holding('library')} "
        "return library(first, second); }"
    )


async def _by_the_library(
    evaluate: Callable[[str], Awaitable[Any]], script: Callable[[bool], str]
) -> Any:
    """``evaluate`` the ``script`` that calls the library the page holds; where the page
    answers that it holds none (a document loaded before the session, or outside one),
    the script that sends the library along, which the page then keeps."""
    result = await evaluate(script(True))
    if isinstance(result, dict) and _MISSING in result:
        result = await evaluate(script(False))
    return result


#: Words of Playwright's error when a navigation replaced the page during an evaluation.
_REPLACED = ("Execution context was destroyed", "Cannot find context with specified id")
ATTEMPTS = 4  # evaluations of one operation on a page that keeps being replaced
SETTLE_S = 0.1  # the first wait for the new page to commit; each next wait is 3 times longer


def replaced(exc: BaseException) -> bool:
    """Whether ``exc`` is Playwright's error for a page a navigation replaced meanwhile."""
    return isinstance(exc, PlaywrightError) and any(words in str(exc) for words in _REPLACED)


async def settled_evaluate(page: Page | Frame, expression: str, arg: Any = None) -> Any:
    """``page.evaluate(expression, arg)`` on the page as it is now: a page that a
    navigation replaced meanwhile is waited for and asked again, up to ATTEMPTS times
    (a page that reloads or moves on by itself is read between its moves); the last
    PlaywrightError is raised when it never holds still."""
    for attempt in range(1, ATTEMPTS):
        try:
            return await page.evaluate(expression, arg)
        except PlaywrightError as exc:
            if not replaced(exc):
                raise
            # the old page is gone before the new one is in place: give it time to commit
            await asyncio.sleep(SETTLE_S * 3 ** (attempt - 1))
            try:
                await page.wait_for_load_state("domcontentloaded")
            except PlaywrightError:
                raise exc from None
    return await page.evaluate(expression, arg)


async def run_on_page(page: Page | Frame, op: str, **options: Any) -> Any:
    """Run one page-level operation of the library (observe, watch, changes). A page that
    a navigation replaced meanwhile is waited for and asked again: the operation is about
    the page as it is now, and the page it was sent to is gone."""
    arg = {"op": op, **options}
    return await _by_the_library(lambda script: settled_evaluate(page, script, arg), _called)


async def read_page(page: Page | Frame, op: str, **options: Any) -> Any:
    """:func:`run_on_page` for a read the planner asked for (observe, find): a page that
    never held still long enough to be read is an ActionError saying so in one line, the
    answer of the tool, instead of Playwright's error."""
    try:
        return await run_on_page(page, op, **options)
    except PlaywrightError as exc:
        if not replaced(exc):
            raise
        raise ActionError(kept_moving(page.url), kind="navigation") from None


def kept_moving(url: str) -> str:
    """The sentence for a page that navigated every time it was read."""
    return (
        f"The page kept navigating while it was read ({ATTEMPTS} tries): {url} reloads or "
        "moves on by itself, so it could not be read."
    )


@cache
def _on_the_element(held: bool) -> str:
    """The library (as in :func:`_called`) applied to the one element its locator
    matches, else the match count."""
    count = json.dumps(_COUNT)
    return (
        f"(elements, arg) => elements.length === 1 ? ({_called(held)})(elements[0], arg) "
        f": {{{count}: elements.length}}"
    )


async def run_on_element(locator: Locator, op: str, **options: Any) -> Any:
    """Run one element-level operation of the library (describe, identity, inspect, before,
    offPage) on the one element ``locator`` matches now, in one round trip to the page
    (``Locator.evaluate`` takes three: wait for the element, evaluate, release its handle).
    Callers count the matches first; no or several matches raise PlaywrightError."""
    count, result = await count_and_run(locator, op, **options)
    if count != 1:
        raise PlaywrightError(f"{count} elements match {locator} now; exactly one was expected.")
    return result


async def run_on_located(locator: Locator, op: str, **options: Any) -> Any:
    """Run one element-level operation on the element ``locator`` resolves to, waiting for
    it as ``Locator.evaluate`` does (PlaywrightError when it never comes)."""
    arg = {"op": op, **options}
    return await _by_the_library(lambda script: locator.evaluate(script, arg), _called)


async def count_and_run(locator: Locator, op: str, **options: Any) -> tuple[int, Any]:
    """How many elements ``locator`` matches now and, when it is exactly one, what ``op``
    gives on it (else None), in one round trip."""
    arg = {"op": op, **options}
    result = await _by_the_library(
        lambda script: locator.evaluate_all(script, arg), _on_the_element
    )
    if isinstance(result, dict) and _COUNT in result:
        return result[_COUNT], None
    return 1, result
