"""The settings a command runs with, checked first: a setting that cannot be used (a
workspace folder that cannot be made among them) ends the command in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from browser_agent.names import ENV_PREFIX

if TYPE_CHECKING:
    from pathlib import Path

    from browser_agent.settings import Settings


def checked_settings() -> Settings:
    """The settings; one that cannot be used (a workspace folder that cannot be made among
    them) ends the command in one line, exit code 2."""
    from browser_agent.settings import SettingsError, load_settings

    try:
        settings = load_settings()
        usable_workspace(settings.workspace)
    except SettingsError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None
    return settings


def usable_workspace(folder: Path) -> None:
    """SettingsError when the workspace folder is not there and cannot be made: its first
    missing folder is made and removed again (a command that never writes, such as
    ``info``, leaves nothing behind)."""
    from browser_agent.settings import SettingsError

    missing = folder
    while not missing.parent.exists() and missing.parent != missing:
        missing = missing.parent
    try:
        if not folder.is_dir():
            missing.mkdir()
            missing.rmdir()
    except OSError as exc:
        raise SettingsError(
            f"{ENV_PREFIX}WORKSPACE (or --workspace): the folder {folder} cannot be made "
            f"({exc.strerror or exc}); name a folder you can write"
        ) from None
