"""``runs``, the recent runs filtered, and ``show``, one run's steps."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from browser_agent.cli.completion import run_ids, skill_names
from browser_agent.cli.json_output import print_json, run_fields, step_fields
from browser_agent.cli.run import cost_note
from browser_agent.cli.terminal import console
from browser_agent.llm.prices import shown_cost


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

    from browser_agent.api import Agent
    from browser_agent.api.run_filter import RunFilter
    from browser_agent.settings import load_settings

    wanted = RunFilter.given(status, site, skill, since, grep)  # its errors name the options
    agent = Agent(load_settings())
    rows = agent.runs(limit, status, site=site, skill=skill, since=since, words=grep)
    if as_json:
        print_json({"runs": [run_fields(row) for row in rows]})
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
            str(row.step_count),
            str(row.llm_calls),
            shown_cost(row.cost_usd),
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
    from browser_agent.api import Agent, RunNotFound
    from browser_agent.errors import UserError
    from browser_agent.settings import load_settings

    try:
        found = Agent(load_settings()).run_info(run_id)
    except RunNotFound as exc:
        raise UserError(exc.said("see browser-agent runs for the ids")) from None
    if as_json:
        steps = [step_fields(s) for s in found.steps]
        print_json({"run": run_fields(found), "steps": steps, "log": found.log_path})
        return
    cost = cost_note(found.cost_usd)
    console().print(f"[bold]{escape(found.command)}[/] ({found.status}, model {found.model}{cost})")
    for step in found.steps:
        mark = "ok" if step.ok else "error"
        console().print(f"{step.index:>3} {step.tool}({escape(step.arguments)}) {mark}")
        console().print(f"    [dim]{escape(step.response[:300])}[/]")
    console().print(f"Answer: {escape(found.answer or '')}\nLog: {found.log_path}")
