"""``browser-agent teach FILE.py "COMMAND"``: a script ``playwright codegen`` wrote, taught
as a demonstration (see :mod:`browser_agent.record.codegen_script`) and harvested into a
skill at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from browser_agent.errors import UserError, unreadable


def teach_command(
    script: Annotated[
        Path,
        typer.Argument(
            help="A script playwright codegen wrote (--target python-async or python).",
            dir_okay=False,
        ),
    ],
    command: Annotated[str, typer.Argument(help="What the script does, in words.")],
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="The site to teach it on: the script's addresses on the site of its first "
            "page are opened on this one instead.",
        ),
    ] = None,
) -> None:
    """Teach a Playwright codegen script as a demonstration of COMMAND, and harvest it.

    The script is read, never run as Python: its steps are played in a headless Chromium
    while they are recorded, as `record` records a person. A line it cannot read is refused
    naming its line number."""
    from browser_agent.record.codegen_script import read_script, teach_script
    from browser_agent.settings import load_settings
    from browser_agent.sites.policy import openable
    from browser_agent.store.db import open_store

    if not command.strip():
        raise UserError("The command is empty: say what the script does.")
    try:
        text = script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{script} {unreadable(exc)}") from None
    steps = read_script(text)
    settings = load_settings()
    site = openable(url, settings) if url else None
    engine = open_store(settings)
    saved, name, said = asyncio.run(teach_script(steps, command, settings, engine, site=site))
    typer.echo(f"Run {saved.run_id}: {saved.command!r} ({saved.log_path})")
    if name is None:
        raise UserError(said)
    typer.echo(said)
