"""``browser-agent memory``: list, search and clear what the agent remembers across runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from browser_agent.cli.json_output import memory_fields, print_json
from browser_agent.cli.terminal import console
from browser_agent.errors import UserError

if TYPE_CHECKING:
    from browser_agent.store.memory_models import MemoryEntry


app = typer.Typer(
    help="What the agent remembers across runs (enable with BROWSER_AGENT_MEMORY_MANAGER=1).",
    no_args_is_help=True,
)


JSON_HELP = "Print the memories as JSON."


def _print(rows: list[MemoryEntry], empty: str, as_json: bool = False) -> None:
    """The memories as a table (the id and run columns never cut), or as JSON."""
    from rich.table import Column, Table

    if as_json:
        print_json({"memories": [memory_fields(row) for row in rows]})
        return
    table = Table(
        Column("id", no_wrap=True), "kind", "saved", Column("run", no_wrap=True), "memory"
    )
    for row in rows:
        table.add_row(
            str(row.id),
            row.kind,
            f"{row.created_at:%Y-%m-%d %H:%M}",
            row.run_id or "",
            escape(row.text),
        )
    console().print(table if rows else empty)


@app.command("list")
def list_memories(
    kind: Annotated[str | None, typer.Option(help="Only this kind: chat, short or long.")] = None,
    limit: Annotated[int, typer.Option(help="How many to show, oldest first.")] = 100,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """List remembered entries: chat context, short-term and long-term memory."""
    # the store (SQLModel) loads only when a memory command runs
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store
    from browser_agent.store.memory_models import KINDS, entries

    if kind is not None and kind not in KINDS:
        raise typer.BadParameter(f"use one of {', '.join(KINDS)}", param_hint="--kind")
    rows = entries(open_store(load_settings()), kind=kind, limit=limit)
    _print(rows, "Nothing remembered yet.", as_json)


@app.command()
def search(
    text: Annotated[str, typer.Argument(help="Text to look for (case-insensitive).")],
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Show the memories that contain TEXT."""
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store
    from browser_agent.store.memory_models import entries

    rows = entries(open_store(load_settings()), contains=text)
    _print(rows, f"No memory contains {text!r}.", as_json)


@app.command()
def clear(
    yes: Annotated[bool, typer.Option("--yes", help="Really delete every memory.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print how many were deleted as JSON.")
    ] = False,
) -> None:
    """Forget everything remembered across runs."""
    if not yes:
        raise UserError("This deletes every memory: run again with --yes to do it.")
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store
    from browser_agent.store.memory_models import clear_entries

    count = clear_entries(open_store(load_settings()))
    if as_json:
        print_json({"deleted": count})
        return
    typer.echo(f"Deleted {count} memories.")
