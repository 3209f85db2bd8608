"""The browser-agent command line: the command group, its global options, every command
in the order ``--help`` lists them, and the process's quick end."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

# Only what `--help` needs is imported here: the settings (pydantic), the browser, the
# store, the planner, the harvester and the model clients load inside the commands that
# use them, so `--help` and a routed run start fast.
from browser_agent.cli.batch import batch_command
from browser_agent.cli.checked_settings import checked_settings
from browser_agent.cli.db import db_app
from browser_agent.cli.feedback import feedback_app
from browser_agent.cli.group import OneLineErrors
from browser_agent.cli.harvest import harvest_command
from browser_agent.cli.info import info, package_version
from browser_agent.cli.mcp import mcp_command
from browser_agent.cli.memory import app as memory_app
from browser_agent.cli.pages import demo_site, dom
from browser_agent.cli.record import record_command
from browser_agent.cli.run import demo, run
from browser_agent.cli.runs import runs, show
from browser_agent.cli.serve import serve_command
from browser_agent.cli.skills import skills_app
from browser_agent.cli.teach import teach_command
from browser_agent.cli.validate import validate_command
from browser_agent.cli.watch import app as watch_app
from browser_agent.names import ENV_PREFIX

app = typer.Typer(
    cls=OneLineErrors,
    help="A browser agent that carries out web commands and learns skills from its runs.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(memory_app, name="memory")
app.command("harvest")(harvest_command)
app.add_typer(skills_app, name="skills")
app.command("validate")(validate_command)
app.command("record")(record_command)
app.command("teach")(teach_command)
app.command("serve")(serve_command)
app.command("batch")(batch_command)
app.add_typer(watch_app, name="watch")
app.add_typer(db_app, name="db", help="The store's schema revision; upgrading it.")
app.add_typer(feedback_app, name="feedback")
app.command("mcp")(mcp_command)
app.command("demo-site")(demo_site)
app.command()(dom)
app.command()(run)
app.command()(demo)
app.command()(runs)
app.command()(show)
app.command()(info)


def _print_version(asked: bool) -> None:
    """``--version``: print ``browser-agent X.Y.Z`` and stop."""
    if asked:
        typer.echo(f"browser-agent {package_version('browser-agent')}")
        raise typer.Exit()


@app.callback()
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


def entry() -> None:
    """The ``browser-agent`` command: ``app``, then a quick end of the process.

    What the command line has loaded lives until the process ends, so it is frozen out of
    the garbage collector's passes first: a routed run spent 50 ms collecting it again."""
    gc.freeze()
    try:
        app()
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


if __name__ == "__main__":
    entry()
