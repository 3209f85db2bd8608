"""``browser-agent watch``: check a command on a schedule (``watch "COMMAND" --every 15m``),
and list, pause, resume, remove, run and install the watches."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from typer.core import TyperGroup

from browser_agent.cli.json_output import print_json
from browser_agent.cli.terminal import console
from browser_agent.errors import UserError

if TYPE_CHECKING:
    from browser_agent.settings import Settings
    from browser_agent.store.connection import Store
    from browser_agent.store.rows import WatchRow
    from browser_agent.watch.runner import Checked

MODEL_HELP = "Model at the endpoint for checks no skill does; 'offline' for the built-in planner."
JSON_HELP = "Print the result as JSON."


class WatchGroup(TyperGroup):
    """``watch "COMMAND" ...`` is ``watch add "COMMAND" ...``, and ``watch --install KIND``
    is ``watch install KIND``: the sub-commands keep their names."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.shortcut(args))

    def shortcut(self, args: list[str]) -> list[str]:
        """``args`` with the sub-command the short forms name."""
        if args and args[0] == "--install":
            return ["install", *args[1:]]
        if args and args[0].startswith("--install="):
            return ["install", args[0].partition("=")[2], *args[1:]]
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            return ["add", *args]
        return args


app = typer.Typer(
    cls=WatchGroup,
    help='Check a command on a schedule: watch "COMMAND" --every 15m|--at 09:00|--cron EXPR '
    "[--until CONDITION] [--notify CMD|URL]; list, pause, resume, remove, run-due, history, "
    "--install.",
    no_args_is_help=True,
)


def _store(settings: Settings) -> Store:
    from browser_agent.store.connection import Store
    from browser_agent.store.db import open_store

    return Store.of(open_store(settings))


def _settings() -> Settings:
    from browser_agent.settings import load_settings

    return load_settings()


@app.command("add")
def add_command(
    command: Annotated[str, typer.Argument(help="What to check, in plain words.")],
    every: Annotated[
        str | None, typer.Option("--every", help="How often: 30s, 15m, 1h (the default), 2d.")
    ] = None,
    at: Annotated[
        str | None, typer.Option("--at", metavar="HH:MM", help="Every day at this local time.")
    ] = None,
    cron: Annotated[
        str | None,
        typer.Option(
            "--cron", metavar="EXPR", help='A cron expression, local time: "0 9 * * 1-5".'
        ),
    ] = None,
    url: Annotated[str | None, typer.Option("--url", help="Page each check starts from.")] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="CONDITION",
            help='When to stop: "price under 100", "the answer contains Sold out", '
            '"price changes" (see docs/watches.md).',
        ),
    ] = None,
    notify: Annotated[
        str | None,
        typer.Option(
            "--notify",
            metavar="CMD|URL",
            help="Told of each change, failure and the condition: a command (the event as "
            "JSON on stdin) or an http(s) URL (POSTed JSON).",
        ),
    ] = None,
    name: Annotated[str | None, typer.Option(help="The watch's name (made from the command).")] = (
        None
    ),
    keep_going: Annotated[
        bool, typer.Option(help="When the condition holds, notify and keep checking.")
    ] = False,
    detach: Annotated[
        bool,
        typer.Option(
            help="Only store the watch: watch run-due (a timer, cron, the console) checks it."
        ),
    ] = False,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Add a watch; unless --detach, check it here until its condition holds.

    Ctrl-C stops checking here and leaves the watch stored for watch run-due."""
    from browser_agent.watch.adding import new_watch
    from browser_agent.watch.runner import now_utc
    from browser_agent.watch.schedule import said_next

    settings = _settings()
    store = _store(settings)
    watch, given = new_watch(
        store, settings, command, every, url, until, notify, name, keep_going, at, cron
    )
    if as_json and detach:
        print_json({"watch": watch.as_json()})
        return
    if not as_json:
        console().print(
            f"Watch [bold]{escape(watch.name)}[/] (id {watch.id}) added: {_every(watch)}; "
            f"{said_next(watch, now_utc())}"
        )
        for secret in given:
            console().print(
                f"[yellow]The command's {secret} is kept out of the store: set "
                f"BROWSER_AGENT_SECRET_{secret} for the checks.[/]"
            )
    if detach:
        return
    _follow(settings, watch, model, as_json)


def _every(watch: WatchRow) -> str:
    from browser_agent.watch.schedule import said_schedule

    until = f", until {watch.until}" if watch.until else ""
    return f"{said_schedule(watch)}{until}"


def _follow(settings: Settings, watch: WatchRow, model: str | None, as_json: bool) -> None:
    """Check ``watch`` in this process as it falls due, until it is done or paused."""
    from browser_agent.llm.choose import make_llm
    from browser_agent.watch.runner import follow

    shown: list[Checked] = []

    def said(checked: Checked) -> None:
        shown.append(checked)
        if not as_json:
            _print_checked(checked)

    try:
        asyncio.run(follow(settings, watch, make_llm(settings, model), said))
    except KeyboardInterrupt:
        typer.secho(
            f"Stopped checking here; watch {watch.name} stays (watch run-due checks it, "
            f"watch pause {watch.name} stops it).",
            fg="yellow",
            err=True,
        )
        raise typer.Exit(130) from None
    if as_json:
        print_json({"watch": watch.as_json(), "checks": [c.check.as_json() for c in shown]})


def _print_checked(checked: Checked) -> None:
    colour = "red" if checked.failed else "green"
    console().print(f"[{colour}]{escape(checked.said())}[/]", overflow="fold")


@app.command("list")
def list_command(as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False) -> None:
    """List the watches: schedule, when the next check is due, state, checks, the last
    outcome, command and condition."""
    from rich import box
    from rich.table import Column, Table

    from browser_agent.store.watches import all_watches
    from browser_agent.watch.runner import now_utc
    from browser_agent.watch.schedule import said_next, said_schedule

    watches = all_watches(_store(_settings()))
    now = now_utc()
    if as_json:
        shown = [{**w.as_json(), "next_check": said_next(w, now)} for w in watches]
        print_json({"watches": shown})
        return
    if not watches:
        console().print('No watches yet: browser-agent watch "COMMAND" --every 15m')
        return
    table = Table(
        Column("id", no_wrap=True, justify="right"),
        Column("name", no_wrap=True),
        Column("when", overflow="fold", min_width=9),
        Column("next", no_wrap=True),
        Column("state", no_wrap=True),
        Column("command, until", overflow="fold", min_width=14),
        box=box.SIMPLE_HEAD,
    )
    for watch in watches:
        table.add_row(
            str(watch.id),
            escape(watch.name),
            said_schedule(watch),
            said_next(watch, now).rpartition(", ")[2].replace("no next check", "-"),
            f"{watch.status}\n[dim]{watch.checks}, {watch.last_status or '-'}[/]",
            escape(watch.command[:60])
            + (f"\n[dim]until {escape(watch.until)}[/]" if watch.until else ""),
        )
    console().print(table)


def _set(name: str, status: str, as_json: bool) -> None:
    from browser_agent.store.watches import ACTIVE, find_watch, set_status
    from browser_agent.watch.runner import now_utc
    from browser_agent.watch.schedule import next_due, said_next

    store = _store(_settings())
    watch = find_watch(store, name)
    now = now_utc()
    due = (next_due(watch, now) if watch.schedule else now) if status == ACTIVE else None
    set_status(store, watch, status, due)
    watch.status, watch.next_at = status, due or watch.next_at
    if as_json:
        print_json({"watch": watch.as_json()})
    else:
        console().print(
            f"Watch {escape(watch.name)} (id {watch.id}): {status}; {said_next(watch, now)}"
        )


def watch_names(incomplete: str) -> list[str]:
    """Tab completion: the names of the watches that begin with what is typed; none when the
    store cannot be read."""
    from browser_agent.errors import BrowserAgentError
    from browser_agent.store.watches import all_watches

    try:
        watches = all_watches(_store(_settings()))
    except (BrowserAgentError, OSError, ValueError):
        return []
    return [watch.name for watch in watches if watch.name.startswith(incomplete)]


WatchArgument = Annotated[
    str,
    typer.Argument(help="The watch's name or id (see watch list).", autocompletion=watch_names),
]


@app.command("pause")
def pause_command(
    name: WatchArgument, as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False
) -> None:
    """Stop checking a watch until it is resumed."""
    from browser_agent.store.watches import PAUSED

    _set(name, PAUSED, as_json)


@app.command("resume")
def resume_command(
    name: WatchArgument, as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False
) -> None:
    """Check a paused (or done) watch again, from now."""
    from browser_agent.store.watches import ACTIVE

    _set(name, ACTIVE, as_json)


@app.command("remove")
def remove_command(
    name: WatchArgument, as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False
) -> None:
    """Remove a watch and its checks (the runs of its checks stay)."""
    from browser_agent.store.watches import find_watch, remove_watch

    store = _store(_settings())
    watch = find_watch(store, name)
    remove_watch(store, watch)
    if as_json:
        print_json({"removed": watch.as_json()})
    else:
        console().print(f"Watch {escape(watch.name)} (id {watch.id}) removed.")


@app.command("run-due")
def run_due_command(
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Check every watch that is due, once (for a systemd timer or cron).

    Exit code 0 when every check succeeded (or none was due), 1 when one failed."""
    from browser_agent.llm.choose import make_llm
    from browser_agent.store.db import open_store
    from browser_agent.watch.runner import run_due

    settings = _settings()
    engine = open_store(settings)
    done = asyncio.run(
        run_due(
            settings,
            engine,
            llm=make_llm(settings, model),
            on_check=None if as_json else _print_checked,
        )
    )
    if as_json:
        print_json({"checks": [{"watch": c.watch.name, **c.check.as_json()} for c in done]})
    elif not done:
        console().print("No watch is due.")
    failed = [c for c in done if c.failed]
    for checked in failed:
        typer.secho(f"watch {checked.watch.name}: {checked.check.error}", err=True)
    raise typer.Exit(1 if failed else 0)


@app.command("history")
def history_command(
    name: WatchArgument,
    limit: Annotated[int, typer.Option(min=1, help="How many recent checks to show.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Show a watch's recent checks, newest first: outcome, values, what changed."""
    from browser_agent.store.watches import checks_of, find_watch
    from browser_agent.watch.runner import Checked

    store = _store(_settings())
    watch = find_watch(store, name)
    checks = checks_of(store, watch, limit)
    if as_json:
        print_json({"watch": watch.as_json(), "checks": [c.as_json() for c in checks]})
        return
    console().print(f"[bold]{escape(watch.name)}[/]: {escape(watch.command)} ({_every(watch)})")
    for check in checks:
        said = Checked(watch, check).said().partition(": ")[2]
        run = f" run {check.run_id}" if check.run_id else ""
        console().print(f"{check.at:%Y-%m-%d %H:%M:%S}{run} {escape(said)}", overflow="fold")
    if not checks:
        console().print("No checks yet.")


@app.command("install")
def install_command(
    kind: Annotated[str, typer.Argument(help="systemd (a service and a timer) or cron.")],
    to: Annotated[
        Path | None,
        typer.Option("--to", file_okay=False, help="Folder to write to (default: the workspace)."),
    ] = None,
    every: Annotated[str, typer.Option(help="How often watch run-due runs.")] = "5m",
    timeout: Annotated[str, typer.Option(help="Longest a run-due may take.")] = "30m",
    user: Annotated[
        str | None,
        typer.Option(help="The user the checks run as (not root; default: you, or browser-agent)."),
    ] = None,
    notify: Annotated[
        str | None,
        typer.Option(metavar="CMD|URL", help="Told when run-due itself fails (OnFailure=)."),
    ] = None,
) -> None:
    """Write the systemd units or the crontab line that run watch run-due on a schedule.

    A service (a non-root user, a timeout, a failure unit) and its timer, or a crontab
    line; nothing is installed: the command says how."""
    from browser_agent.watch.install import write_install

    settings = _settings()
    try:
        written, steps = write_install(settings, kind, to, every, timeout, user, notify)
    except OSError as exc:
        raise UserError(f"--to {to or settings.workspace}: {exc.strerror or exc}") from None
    for path in written:
        console().print(f"Wrote {path}")
    console().print(steps)


@app.command("notify-failure", hidden=True)
def notify_failure_command(
    unit: Annotated[str, typer.Argument(help="The unit that failed.")],
    notify: Annotated[str | None, typer.Option(metavar="CMD|URL")] = None,
) -> None:
    """Tell the hook (and the workspace's watch log) that a unit running watches failed."""
    from browser_agent.watch.install import unit_failed

    said = unit_failed(_settings(), unit, notify)
    typer.echo(said, err=True)
