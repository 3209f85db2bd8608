"""Playwright's driver: the Node.js process every browser of a command is reached through.
Loading this module loads Playwright and nothing of the agent's settings, so a command can
start the driver before the rest of the agent has loaded."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_cache_dir
from playwright.async_api import async_playwright

from browser_agent.names import APP_NAME

if TYPE_CHECKING:
    from playwright.async_api._context_manager import PlaywrightContextManager


def playwright_driver() -> PlaywrightContextManager:
    """``async_playwright()``, whose Node.js process keeps its compiled code between
    commands in the user's cache folder: it then starts in about 0.22 s instead of 0.29.
    A ``NODE_COMPILE_CACHE`` already set is kept; a folder that cannot be written is
    skipped by Node.js itself."""
    folder = Path(user_cache_dir(APP_NAME)) / "node-compile-cache"
    os.environ.setdefault("NODE_COMPILE_CACHE", str(folder))
    return async_playwright()
