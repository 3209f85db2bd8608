"""What every primitive shares: the selector parameter, the session, Playwright errors."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated, TypeVar

from playwright.async_api import Error as PlaywrightError

from browser_agent.errors import ActionError

T = TypeVar("T")

Selector = Annotated[
    str,
    "The element: its mmid as [mmid='12'] (from get_dom) or any Playwright selector.",
]


async def attempt(action: Awaitable[T], what: str, selector: str | None = None) -> T:
    """Await a Playwright action; turn its failure into an ActionError a model can read."""
    try:
        return await action
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0]
        detail = _explain(str(exc))
        kind = "timeout" if "Timeout" in first else "failed"
        raise ActionError(
            f"Could not {what}: {detail or first}", kind=kind, selector=selector
        ) from exc


def _explain(message: str) -> str:
    """Pick the sentence of a Playwright log that says why an action did not happen."""
    for line in message.splitlines():
        line = line.strip(" -")
        if "intercepts pointer events" in line:
            return f"another element covers it ({line.split(' from ')[0]}). Close it first."
        if "element is not enabled" in line or "element is disabled" in line:
            return "the element is disabled."
        if "not an <input>" in line or "not an <select>" in line:
            return line
    return ""
