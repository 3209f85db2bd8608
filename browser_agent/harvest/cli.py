"""CLI commands for harvesting and for looking at harvested skills."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Column, Table
from sqlmodel import Session, select

from browser_agent.harvest.harvester import HarvestResult, harvest
from browser_agent.settings import load_settings
from browser_agent.store.db import open_store
from browser_agent.store.models import Run
from browser_agent.store.skills import current_skills, skill_by_name, versions_of

console = Console()
skills_app = typer.Typer(help="List harvested skills, or show one.", invoke_without_command=True)


def _sources(items: list[str], all_runs: bool) -> list[Path]:
    """Log files for run ids and paths; with --all, every successful run's log."""
    settings = load_settings()
    paths = []
    for item in items:
        path = Path(item)
        if path.suffix == ".json" or path.exists():
            paths.append(path)
        else:
            paths.append(settings.logs_dir / f"{item}.json")
    if all_runs:
        engine = open_store(settings)
        with Session(engine) as db:
            runs = db.exec(select(Run).where(Run.status == "succeeded").order_by(Run.started_at))
            paths += [Path(run.log_path) for run in runs if run.log_path]
    return paths


def harvest_command(
    sources: Annotated[
        list[str] | None, typer.Argument(help="Run ids or chat-log files to harvest.")
    ] = None,
    all_runs: Annotated[bool, typer.Option("--all", help="Harvest every successful run.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the code it would generate; write nothing.")
    ] = False,
    verify: Annotated[bool, typer.Option(help="Replay each new skill at once.")] = True,
) -> None:
    """Turn successful runs into typed async skills in skills/harvested/."""
    paths = _sources(sources or [], all_runs)
    if not paths:
        typer.secho("Nothing to harvest: name run ids or log files, or use --all.", err=True)
        raise typer.Exit(2)
    settings = load_settings()
    results = asyncio.run(
        harvest(paths, settings, open_store(settings), dry_run=dry_run, verify=verify)
    )
    for result in results:
        _report(result, dry_run)
    if not any(r.skill or r.code for r in results):
        raise typer.Exit(1)


def _report(result: HarvestResult, dry_run: bool) -> None:
    if result.error:
        console.print(f"[yellow]skipped[/] {escape(result.error)}")
    elif dry_run and result.code:
        console.print(f"[bold]would write[/] (from {escape(result.source)}):")
        console.print(Syntax(result.code, "python"))
    elif result.skill:
        skill = result.skill
        state = {True: "[green]verified, healthy[/]", False: "[yellow]not verified[/]"}
        note = state.get(result.verified, "candidate")
        reason = f" ({escape(result.verify_error)})" if result.verify_error else ""
        console.print(
            f"[bold]{skill.name}[/] v{skill.version}: {note}{reason}\n"
            f"  {escape(json.loads(skill.command_templates)[0])}\n  {skill.module_path}"
        )


@skills_app.callback()
def skills_list(ctx: typer.Context) -> None:
    """List skills with status, version, uses and last validation."""
    if ctx.invoked_subcommand:
        return
    rows = current_skills(open_store(load_settings()))
    if not rows:
        console.print("No harvested skills yet: run a command, then browser-agent harvest --all.")
        return
    table = Table(
        Column("name", no_wrap=True),
        Column("status", no_wrap=True),
        "version",
        "uses",
        "ok/failed",
        "validated",
        "command",
    )
    for skill in rows:
        validated = f"{skill.last_validated_at:%Y-%m-%d %H:%M}" if skill.last_validated_at else "-"
        table.add_row(
            skill.name,
            skill.status,
            str(skill.version),
            str(skill.uses),
            f"{skill.successes}/{skill.failures}",
            validated,
            escape(json.loads(skill.command_templates)[0]),
        )
    console.print(table)


@skills_app.command("show")
def skills_show(name: Annotated[str, typer.Argument(help="The skill's name.")]) -> None:
    """Print a skill's source and provenance."""
    engine = open_store(load_settings())
    skill = skill_by_name(engine, name)
    if skill is None:
        typer.secho(f"No skill {name!r}; see browser-agent skills.", fg="red", err=True)
        raise typer.Exit(1)
    versions = ", ".join(f"v{s.version} ({s.status})" for s in versions_of(engine, name))
    console.print(f"[bold]{skill.name}[/] v{skill.version} - {skill.status}; versions: {versions}")
    console.print(f"commands: {escape(', '.join(json.loads(skill.command_templates)))}")
    console.print(f"example arguments: {escape(skill.example_args)}")
    console.print(f"from runs: {escape(', '.join(json.loads(skill.source_runs)))}")
    if skill.last_error:
        console.print(f"last error: {escape(skill.last_error)}")
    path = Path(skill.module_path)
    if path.exists():
        console.print(Syntax(path.read_text(encoding="utf-8"), "python"))
    else:
        console.print(f"[red]module missing: {path}[/]")
