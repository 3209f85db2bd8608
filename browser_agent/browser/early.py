"""Starting the browser while Python is still loading: a command that will need one starts
Playwright's driver first, loads its settings and imports its heavy modules (the store,
the planner) in a thread meanwhile, and launches Chromium as soon as the settings say how,
so the browser's start-up and the imports overlap instead of adding up."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

from browser_agent.browser.driver import playwright_driver

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

    from browser_agent.settings import Settings


@asynccontextmanager
async def browser_while_importing(
    load: Callable[[], Settings], *modules: str
) -> AsyncIterator[tuple[Settings, asyncio.Future[Browser]]]:
    """The settings ``load`` gives (called in a thread while the driver starts; what it
    raises ends the command), once ``modules`` are imported, and the browser launched as
    they say, which may still be starting: its future raises what the launch met (a
    NoBrowser saying why), for the command to record."""
    async with AsyncExitStack() as stack:
        driver = asyncio.ensure_future(stack.enter_async_context(playwright_driver()))
        try:
            settings = await asyncio.to_thread(load)
        except BaseException:
            await asyncio.gather(driver, return_exceptions=True)  # the stack closes it
            raise
        launching = asyncio.ensure_future(_launched(stack, driver, settings))
        try:
            for name in modules:
                await asyncio.to_thread(importlib.import_module, name)
            yield settings, launching
        finally:  # launched or not, before the stack closes what it opened
            await asyncio.gather(launching, return_exceptions=True)


async def _launched(
    stack: AsyncExitStack, driver: asyncio.Future[Playwright], settings: Settings
) -> Browser:
    from browser_agent.browser.session import launched_browser  # loads the settings' module

    return await stack.enter_async_context(launched_browser(settings, await driver))
