"""``browser-agent record``: a person shows a task in a browser window; it becomes a run.

The window is a headed Chromium (or the browser at ``BROWSER_AGENT_BROWSER_ENDPOINT``);
the recording ends when the person closes it, or with Ctrl-C. It then asks what the
demonstration does (unless ``--command`` said), says which typed values the command
names (they become parameters) and which stay fixed, and offers to harvest it at once.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from browser_agent.cli.browser_options import SecretOption

if TYPE_CHECKING:
    from browser_agent.record.session import Recording
    from browser_agent.settings import Settings


def _fail(message: str) -> typer.Exit:
    typer.secho(message, err=True)
    return typer.Exit(2)


def record_command(
    url: Annotated[str | None, typer.Option("--url", help="Page to start from.")] = None,
    command: Annotated[
        str | None, typer.Option("--command", help="What the demonstration does, in words.")
    ] = None,
    harvest_now: Annotated[
        bool | None,
        typer.Option("--harvest/--no-harvest", help="Harvest it into a skill at once."),
    ] = None,
    secret: SecretOption = None,
) -> None:
    """Record a task a person shows in a browser window, as a run to harvest into a skill.

    Close the window (or press Ctrl-C) when done. Typing is kept one step per field; a
    password typed is kept as a {NAME} placeholder, never its value."""
    from browser_agent.record.teach import NO_DISPLAY, CannotRecord, has_display
    from browser_agent.secrets import configured
    from browser_agent.settings import load_settings
    from browser_agent.sites.policy import openable

    settings = load_settings()
    terminal = sys.stdin.isatty()
    if command is not None and not command.strip():
        raise _fail("Error: the command is empty: say what the demonstration does.")
    if command is None and not terminal:
        raise _fail("Error: not on a terminal: give --command with what the demonstration does.")
    if not settings.browser_endpoint and not has_display():
        raise _fail(f"Error: {NO_DISPLAY}")
    start = openable(url, settings) if url else None
    try:
        recording = asyncio.run(_record(settings, start, configured(secret)))
    except CannotRecord as exc:
        raise _fail(f"Error: {exc}") from None
    if not any(action.tool != "open_url" for action in recording.actions):
        raise _fail("Nothing was recorded: no click, typing or choice on a page.")
    typer.echo(f"Recorded {len(recording.actions)} actions.")
    if command is None:
        command = typer.prompt("What does this demonstration do? (the command)")
    _save_and_harvest(recording, command, settings, terminal, harvest_now)


async def _record(settings: Settings, url: str | None, secrets: dict[str, str]) -> Recording:
    """Record in a window until the person closes it or presses Ctrl-C."""
    from browser_agent.record.teach import record_in_window

    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, ended.set)
    typer.echo("Recording: show the task in the window; close it (or Ctrl-C) when done.")
    return await record_in_window(settings, url, secrets, ended)


def _save_and_harvest(
    recording: Recording,
    command: str,
    settings: Settings,
    terminal: bool,
    harvest_now: bool | None,
) -> None:
    """Store the run, say what becomes a parameter, and harvest when asked to."""
    from browser_agent.record.save import save_recording
    from browser_agent.record.teach import harvest_saved, password_notes
    from browser_agent.store.db import open_store

    engine = open_store(settings)
    try:
        saved = save_recording(recording, command, settings, engine)
    except ValueError as exc:
        raise _fail(f"Error: {exc}") from None
    typer.echo(f"Run {saved.run_id}: {saved.command!r} ({saved.log_path})")
    _show_parameters(Path(saved.log_path))
    for note in password_notes(recording, saved):
        typer.echo(f"  {note}")
    if harvest_now is None:
        harvest_now = terminal and typer.confirm("Harvest it into a skill now?", default=True)
    if not harvest_now:
        typer.echo(f"Harvest it later with: browser-agent harvest {saved.log_path}")
        return
    skill, said = asyncio.run(harvest_saved(saved, settings, engine))
    if skill is None:
        raise _fail(said)
    typer.echo(said)


def _show_parameters(log: Path) -> None:
    """Which values the command names (parameters of the skill) and which stay fixed."""
    from browser_agent.harvest.harvester import plan_from
    from browser_agent.plans.plan import NotHarvestable, Param

    try:
        plan = plan_from(log)
    except (NotHarvestable, ValueError) as exc:
        typer.echo(f"  It cannot become a skill as it is: {exc}")
        return
    typer.echo(f"  Command template: {plan.template}")
    for param in plan.params:
        if param.name != "start_url":
            typer.echo(f"  {param.name}: {param.example!r}, from the command")
    for step in plan.steps:
        for key in ("text", "option"):
            value = step.arguments.get(key)
            if isinstance(value, str) and not isinstance(value, Param):
                typer.echo(
                    f"  {value!r} ({step.primitive}) stays fixed: the command does not say it"
                )
    if not plan.complete:
        typer.echo(f"  The skill would end early: {plan.ended_because}")
