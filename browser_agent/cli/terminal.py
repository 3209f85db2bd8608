"""The terminal a command prints to, made when it prints: its width is read then (COLUMNS
or the terminal's size), not fixed when the module was first imported; and Python source
printed on it."""

from __future__ import annotations

from rich.console import Console


def console() -> Console:
    """Standard output."""
    return Console()


def err_console() -> Console:
    """Standard error."""
    return Console(stderr=True)


def print_source(code: str, on: Console) -> None:
    """Python source: highlighted on a terminal, else written as it is (no colour, no
    wrapping at the terminal's width), so piped source is the module itself."""
    if on.is_terminal:
        from rich.syntax import Syntax

        on.print(Syntax(code, "python"))
        return
    on.file.write(code if code.endswith("\n") else code + "\n")
    on.file.flush()
