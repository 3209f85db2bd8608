"""The command group: every mistake or failure a command meets is said in one line on
stderr, never as a traceback unless ``--debug`` asks for one; and every command's help reads
as paragraphs that the terminal's width wraps, not as the lines its docstring was typed in."""

from __future__ import annotations

import inspect
import os
import re
import sys
from typing import Any

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from browser_agent.errors import UserError

DEBUG_HINT = "--debug shows the traceback"


def fail(message: str, code: int = 2) -> typer.Exit:
    """Say ``message`` on stderr as one line and return the Exit to raise."""
    typer.secho(f"Error: {' '.join(message.split())}", fg="red", err=True)
    return typer.Exit(code)


# A paragraph kept line by line: click's ``\b`` mark, an indented line (an example), a list.
_KEPT = re.compile(r"^(?:\x08|\s|[-*] |\d+\. )", re.MULTILINE)


def reflowed(text: str) -> str:
    """``text`` with the line breaks inside each paragraph made spaces, so that the help is
    wrapped at the terminal's width only; examples and lists keep their lines."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        part if _KEPT.search(part) else " ".join(part.split()) for part in paragraphs
    )


def reflow_help(command: Any) -> None:
    """Reflow the help of ``command`` and of every command under it."""
    if getattr(command, "help", None):
        command.help = reflowed(command.help)
    for sub in getattr(command, "commands", {}).values():
        reflow_help(sub)


class OneLineErrors(TyperGroup):
    """The command group. A store that cannot be opened or used, a secret given wrong, an
    option value that is not a setting's, no browser to launch, or any other mistake the
    user can fix is one line with exit code 2; a usage error (an unknown option, a value
    out of range) is one line with exit code 2 too; anything unexpected is one line with
    exit code 1 and the traceback only under ``--debug``."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UserError as exc:  # the store, a secret, a setting, no browser, and the like
            raise fail(str(exc)) from None
        except (ClickException, typer.Exit, typer.Abort, BrokenPipeError):
            raise
        except Exception as exc:
            if ctx.params.get("debug"):
                raise
            raise fail(f"{type(exc).__name__}: {exc} ({DEBUG_HINT})", 1) from None

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Usage errors in one line (``Error: ... (see 'browser-agent run -h')``) instead
        of click's usage block."""
        reflow_help(self)
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except NoArgsIsHelpError as exc:  # the help (rich has printed it already)
            if exc.format_message().strip():
                exc.show()
            sys.exit(exc.exit_code)
        except ClickException as exc:
            context = getattr(exc, "ctx", None)
            where = context.command_path if context is not None else self.name
            see = f" (see '{where} -h')" if isinstance(exc, UsageError) else ""
            message = " ".join(exc.format_message().split())
            typer.secho(f"Error: {message}{see}", fg="red", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.secho("Aborted.", fg="red", err=True)
            sys.exit(1)
        except BrokenPipeError:  # its reader went (``| head``): stop quietly, as tools do
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
