"""Logins that last: cookies and storage read into a new browser context from a named
profile of the workspace or a Playwright storage-state file (see
:mod:`browser_agent.storage_state`), and a profile written back when a run ends."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from browser_agent.storage_state import profile_path, read_storage_state, write_storage_state

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

    from browser_agent.settings import Settings


def starting_state(settings: Settings) -> dict[str, Any] | None:
    """The cookies and storage a new context starts from: the storage-state file named in
    the settings, else the profile's last state, else none (an empty browser)."""
    if settings.storage_state is not None:
        return read_storage_state(settings.storage_state)
    if settings.profile is None:
        return None
    path = profile_path(settings.workspace, settings.profile)
    return read_storage_state(path) if path.exists() else None


async def keep_profile(settings: Settings, context: BrowserContext) -> None:
    """Write the context's cookies and storage back to the profile named in the settings."""
    if settings.profile is not None:
        path = profile_path(settings.workspace, settings.profile)
        write_storage_state(path, dict(await context.storage_state()))
