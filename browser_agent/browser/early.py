"""Starting Chromium while Python is still loading: a command that will need a browser
launches it first and imports its heavy modules (the store, the planner) in a thread
meanwhile, so the browser's start-up and the imports overlap instead of adding up."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

from browser_agent.browser.errors import BrowserError
from browser_agent.browser.session import launched_browser

if TYPE_CHECKING:
    from playwright.async_api import Browser

    from browser_agent.settings import Settings


@asynccontextmanager
async def browser_while_importing(
    settings: Settings, *modules: str
) -> AsyncIterator[Browser | None]:
    """A launched browser, started while ``modules`` are imported; None when it could not
    start, so the command opens its own and meets (and records) the same error there."""
    async with AsyncExitStack() as stack:
        launching = asyncio.ensure_future(stack.enter_async_context(launched_browser(settings)))
        try:
            for name in modules:
                await asyncio.to_thread(importlib.import_module, name)
        finally:
            try:
                browser: Browser | None = await launching
            except BrowserError:
                browser = None
        yield browser
