"""The in-page JavaScript library, loaded once from the package."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Frame, Locator, Page


@cache
def page_library() -> str:
    """Source of page_library.js: one function expression taking (target?, arg)."""
    return resources.files("browser_agent.dom").joinpath("page_library.js").read_text("utf-8")


async def run_on_page(page: Page | Frame, op: str, **options: Any) -> Any:
    """Run one page-level operation of the library (observe, watch, changes)."""
    return await page.evaluate(page_library(), {"op": op, **options})


async def run_on_element(locator: Locator, op: str, **options: Any) -> Any:
    """Run one element-level operation of the library (describe, identity, before)."""
    return await locator.evaluate(page_library(), {"op": op, **options})
