"""Browser layer: launching or connecting Chromium, the per-task session, locating elements."""

from browser_agent.browser.errors import ActionError, BrowserError
from browser_agent.browser.session import BrowserSession, browser_session, current_page, session

__all__ = [
    "ActionError",
    "BrowserError",
    "BrowserSession",
    "browser_session",
    "current_page",
    "session",
]
