"""The browser-agent command line: the command group, its global options, every command
in the order ``--help`` lists them, and the process's quick end."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from browser_agent.cli.checked_settings import checked_settings
from browser_agent.cli.group import OneLineErrors
from browser_agent.names import ENV_PREFIX

# Every command in the order ``--help`` lists them: (name, module, attribute, help of a
# group of commands). A command's module is imported only when the group is built with it,
# so a command line loads only the modules of the command it runs (the settings, browser,
# store, planner, harvester and model clients load inside the commands that use them).
COMMANDS: tuple[tuple[str, str, str, str | None], ...] = (
    ("memory", "browser_agent.cli.memory", "app", None),
    ("harvest", "browser_agent.cli.harvest", "harvest_command", None),
    ("skills", "browser_agent.cli.skills", "skills_app", None),
    ("validate", "browser_agent.cli.validate", "validate_command", None),
    ("record", "browser_agent.cli.record", "record_command", None),
    ("teach", "browser_agent.cli.teach", "teach_command", None),
    ("serve", "browser_agent.cli.serve", "serve_command", None),
    ("batch", "browser_agent.cli.batch", "batch_command", None),
    ("watch", "browser_agent.cli.watch", "app", None),
    ("db", "browser_agent.cli.db", "db_app", "The store's schema revision; upgrading it."),
    ("feedback", "browser_agent.cli.feedback", "feedback_app", None),
    ("mcp", "browser_agent.cli.mcp", "mcp_command", None),
    ("demo-site", "browser_agent.cli.pages", "demo_site", None),
    ("dom", "browser_agent.cli.pages", "dom", None),
    ("run", "browser_agent.cli.run", "run", None),
    ("demo", "browser_agent.cli.run", "demo", None),
    ("runs", "browser_agent.cli.runs", "runs", None),
    ("show", "browser_agent.cli.runs", "show", None),
    ("info", "browser_agent.cli.info", "info", None),
)
# The global options that take a value: what follows them is not a command's name.
GLOBAL_VALUES = ("--workspace", "--browser-endpoint")


def command_line(only: str | None = None) -> typer.Typer:
    """The command group with every command, or with only the one named ``only``."""
    group = typer.Typer(
        cls=OneLineErrors,
        help="A browser agent that carries out web commands and learns skills from its runs.",
        no_args_is_help=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    group.callback()(main)
    for name, module, attribute, help_text in COMMANDS:
        if only is not None and name != only:
            continue
        target = getattr(importlib.import_module(module), attribute)
        if isinstance(target, typer.Typer):
            group.add_typer(target, name=name, **({"help": help_text} if help_text else {}))
        else:
            group.command(name)(target)
    return group


def named_command(arguments: list[str]) -> str | None:
    """The command these arguments run, when they name one and ask for nothing else of the
    whole group (its help, its version, a shell's completion); else None."""
    if os.environ.get("_BROWSER_AGENT_COMPLETE"):
        return None
    value_next = False
    for argument in arguments:
        if value_next:
            value_next = False
        elif argument in GLOBAL_VALUES:
            value_next = True
        elif not argument.startswith("-"):
            return argument if argument in {c[0] for c in COMMANDS} else None
        elif argument.split("=", 1)[0] not in GLOBAL_VALUES + ("--debug",):
            return None  # --help, --version, or a mistake the whole group answers
    return None


def _print_version(asked: bool) -> None:
    """``--version``: print ``browser-agent X.Y.Z`` and stop."""
    if asked:
        from browser_agent.cli.info import package_version  # its module loads only here

        typer.echo(f"browser-agent {package_version('browser-agent')}")
        raise typer.Exit()


def main(
    ctx: typer.Context,
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace",
            file_okay=False,
            help="Workspace folder (logs, skills, store) for this command; "
            "overrides BROWSER_AGENT_WORKSPACE.",
        ),
    ] = None,
    browser_endpoint: Annotated[
        str | None,
        typer.Option(
            "--browser-endpoint",
            metavar="URL",
            help="Drive a browser already running: a Chrome DevTools address "
            "(http://HOST:9222, ws://HOST:9222) or a Playwright server's ws:// URL; "
            "overrides BROWSER_AGENT_BROWSER_ENDPOINT.",
        ),
    ] = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")
    ] = False,
    _version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version."
        ),
    ] = False,
) -> None:
    """Apply the global options and check the settings before any command runs (``run``
    checks them itself, while its browser starts)."""
    if workspace is not None:
        _set_env_while_running(ctx, f"{ENV_PREFIX}WORKSPACE", str(workspace.expanduser().resolve()))
    if browser_endpoint is not None:
        _set_env_while_running(ctx, f"{ENV_PREFIX}BROWSER_ENDPOINT", browser_endpoint)
    if ctx.invoked_subcommand != "run":
        checked_settings()


def _set_env_while_running(ctx: typer.Context, name: str, value: str) -> None:
    """Set an environment variable until this command line is done; every settings read
    of the command (and any worker process it starts) sees it."""
    before = os.environ.get(name)
    os.environ[name] = value

    def restore() -> None:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before

    ctx.call_on_close(restore)


GC_AFTER = 50_000  # new objects between the garbage collector's youngest passes


def entry() -> None:
    """The ``browser-agent`` command: the command group, built with only the command the
    arguments name (all of them for the group's help), then a quick end of the process.

    What the command line has loaded lives until the process ends, so it is frozen out of
    the garbage collector's passes first: a routed run spent 50 ms collecting it again. The
    modules a command loads next are such data too: the collector runs after 50,000 new
    objects rather than 700: importing a routed run's modules took 25 ms less CPU (0.274 s
    against 0.298 s, medians of seven processes)."""
    gc.freeze()
    gc.set_threshold(GC_AFTER, *gc.get_threshold()[1:])
    try:
        command_line(named_command(sys.argv[1:]))()
    finally:
        _before_exit()


def _before_exit() -> None:
    """Close the store's connections, then keep what the command loaded out of the garbage
    collector's passes at exit: for a routed run that is about 110,000 objects, and the
    passes took a quarter of a second, as long as the run's page actions."""
    run_store = sys.modules.get("browser_agent.store.run_store")  # not for --help
    if run_store is not None:
        run_store.close_stores()
    db = sys.modules.get("browser_agent.store.db")  # not for a run on a current store
    if db is not None:
        db.close_engines()
    gc.freeze()


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole command group, built when first asked for (tests, docs)."""
    if name != "app":
        raise AttributeError(name)
    built = globals()["app"] = command_line()
    return built


if __name__ == "__main__":
    entry()
