"""``runs``, the recent runs filtered, and ``show``, one run's steps."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from browser_agent.cli.completion import run_ids, skill_names
from browser_agent.cli.json_output import print_json, run_fields, step_fields
from browser_agent.cli.run import cost_note
from browser_agent.cli.terminal import console
from browser_agent.llm.prices import cost_of_run, priced, shown_cost


def runs(
    limit: Annotated[int, typer.Option(help="How many recent runs to list.")] = 20,
    status: Annotated[
        str | None, typer.Option(help="Only runs with this status: succeeded, failed, ...")
    ] = None,
    site: Annotated[
        str | None, typer.Option(help="Only runs that started or ended on this host.")
    ] = None,
    skill: Annotated[
        str | None,
        typer.Option(help="Only runs that used this skill.", autocompletion=skill_names),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(metavar="WHEN", help="Only runs started since: 2h, 3d, 2026-12-01."),
    ] = None,
    grep: Annotated[
        str | None,
        typer.Option("--grep", metavar="WORDS", help="Only runs whose command holds these words."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the runs as JSON.")] = False,
) -> None:
    """List recent runs with their outcome and cost, filtered as the console's run list is."""
    from rich import box
    from rich.table import Column, Table

    from browser_agent.api.run_filter import RunFilter, filtered_runs
    from browser_agent.settings import load_settings
    from browser_agent.store.run_store import open_run_store  # SQL through the driver alone

    wanted = RunFilter.given(status, site, skill, since, grep)
    settings = load_settings()
    rows = filtered_runs(open_run_store(settings), limit, wanted)
    if as_json:
        print_json({"runs": [priced(run_fields(row), row, settings.prices) for row in rows]})
        return
    # at 80 columns too, every column but the command keeps its values whole (a run id
    # begins with its start time, UTC)
    table = Table(
        Column("run", no_wrap=True),
        Column("status", no_wrap=True),
        Column("steps", no_wrap=True, justify="right"),
        Column("LLM\ncalls", no_wrap=True, justify="right"),
        Column("cost", no_wrap=True, justify="right"),
        "command",
        box=box.SIMPLE_HEAD,
    )
    for row in rows:
        table.add_row(
            row.id,
            row.status,
            str(row.steps),
            str(row.llm_calls),
            shown_cost(cost_of_run(row, settings.prices)),
            escape(row.command[:60]),
        )
    empty = "No run matches." if wanted != RunFilter() else "No runs yet: try browser-agent demo."
    console().print(table if rows else empty)


def show(
    run_id: Annotated[
        str,
        typer.Argument(
            help="The run id (see browser-agent runs), or its unique start.",
            autocompletion=run_ids,
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the run and its steps as JSON.")
    ] = False,
) -> None:
    """Print one run's steps: tool, arguments, response."""
    from sqlmodel import Session  # the store loads only for commands that read it

    from browser_agent.cli.run_lookup import one_run
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store
    from browser_agent.store.run_logs import log_file
    from browser_agent.store.run_steps import steps_of

    settings = load_settings()
    engine = open_store(settings)
    with Session(engine) as db:
        found = one_run(db, run_id)
        steps = steps_of(db, found.id)
    log = log_file(engine, found, settings.workspace) if found.log_path else ""
    if as_json:
        shown = priced(run_fields(found), found, settings.prices)
        print_json({"run": shown, "steps": [step_fields(s) for s in steps], "log": log})
        return
    cost = cost_note(cost_of_run(found, settings.prices))
    console().print(f"[bold]{escape(found.command)}[/] ({found.status}, model {found.model}{cost})")
    for step in steps:
        mark = "ok" if step.ok else "error"
        console().print(f"{step.index:>3} {step.tool}({escape(step.arguments)}) {mark}")
        console().print(f"    [dim]{escape(step.response[:300])}[/]")
    console().print(f"Answer: {escape(found.answer or '')}\nLog: {log}")
