"""``browser-agent feedback``: the person's corrections of the agent, as a dataset."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from browser_agent.cli.json_output import print_json
from browser_agent.errors import UserError

feedback_app = typer.Typer(
    help="The person's decisions on the agent's actions (approval mode), as feedback.",
    no_args_is_help=True,
)

SINCE_HELP = (
    "Only decisions made since then: a date or time (2026-12-01, 2026-12-01T09:30, UTC "
    "unless it says its zone) or an age (30m, 12h, 7d, 2w)."
)
_AGE = re.compile(r"(\d+)\s*([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class BadSince(UserError, ValueError):
    """A ``--since`` that is neither a date, a time nor an age."""


def since_time(text: str, now: datetime | None = None) -> datetime:
    """The UTC time ``--since`` names."""
    now = now or datetime.now(UTC)
    age = _AGE.fullmatch(text.strip().lower())
    if age:
        return now - timedelta(**{_UNITS[age[2]]: int(age[1])})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadSince(f"--since {text[:40]!r}: {SINCE_HELP}") from None
    return when.replace(tzinfo=UTC) if when.utcoffset() is None else when.astimezone(UTC)


@feedback_app.command("export")
def export_command(
    out: Annotated[
        Path | None,
        typer.Option("--out", dir_okay=False, help="Write the JSONL here (default: stdout)."),
    ] = None,
    since: Annotated[str | None, typer.Option("--since", help=SINCE_HELP)] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a summary as JSON (needs --out).")
    ] = False,
) -> None:
    """Write corrected actions (and actions rejected with a note) as a JSONL dataset in
    the chat fine-tuning shape of the OpenAI API, with the tools; masked like the logs."""
    from browser_agent.feedback.dataset import export
    from browser_agent.secrets import configured
    from browser_agent.settings import load_settings
    from browser_agent.store.run_store import open_run_store

    if as_json and out is None:
        raise UserError("--json prints a summary on stdout: write the dataset with --out FILE")
    after = since_time(since) if since else None
    store = open_run_store(load_settings())
    secrets = configured().values()
    try:
        if out is None:
            done = export(store, sys.stdout, after, secrets)
        else:
            with out.open("w", encoding="utf-8") as written:
                done = export(store, written, after, secrets)
    except OSError as exc:
        raise UserError(f"--out {out}: {exc.strerror or exc}") from None
    finally:
        store.close()
    summary = {
        "examples": done.examples,
        "corrected": done.corrected,
        "rejected": done.rejected,
        "left_out": done.left_out,
        "out": str(out) if out else None,
        "since": after.isoformat() if after else None,
    }
    if as_json:
        print_json(summary)
        return
    left = f" ({done.left_out} rejections left out: the run ended before the model answered)"
    typer.echo(
        f"{done.examples} examples: {done.corrected} corrected, {done.rejected} rejected "
        f"with a note{left if done.left_out else ''}" + (f"; written to {out}" if out else ""),
        err=out is None,
    )
