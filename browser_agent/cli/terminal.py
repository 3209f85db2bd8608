"""The terminal a command prints to, made when it prints: its width is read then (COLUMNS
or the terminal's size), not fixed when the module was first imported; and Python source
printed on it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich loads when a command prints, not for a run that answers in JSON
    from rich.console import Console


def console() -> Console:
    """Standard output."""
    from rich.console import Console

    return Console()


def err_console() -> Console:
    """Standard error."""
    from rich.console import Console

    return Console(stderr=True)


def escape(text: str) -> str:
    """``text`` with rich's markup made literal, to be printed as it is."""
    from rich.markup import escape as escaped

    return escaped(text)


def print_source(code: str, on: Console) -> None:
    """Python source: highlighted on a terminal, else written as it is (no colour, no
    wrapping at the terminal's width), so piped source is the module itself."""
    if on.is_terminal:
        from rich.syntax import Syntax

        on.print(Syntax(code, "python"))
        return
    on.file.write(code if code.endswith("\n") else code + "\n")
    on.file.flush()
