"""The terminal a command prints to, made when it prints: its width is read then (COLUMNS
or the terminal's size), not fixed when the module was first imported."""

from __future__ import annotations

from rich.console import Console


def console() -> Console:
    """Standard output."""
    return Console()


def err_console() -> Console:
    """Standard error."""
    return Console(stderr=True)
