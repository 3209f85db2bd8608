"""``browser-agent skills``: list the harvested skills; show, export or roll back one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from browser_agent.cli.completion import skill_names
from browser_agent.cli.json_output import print_json, skill_fields
from browser_agent.cli.terminal import console, print_source
from browser_agent.errors import UserError

if TYPE_CHECKING:
    from browser_agent.api import SkillInfo
    from browser_agent.store.health import Health

# Columns from which a listing shows its counts beside the command.
WIDE_TERMINAL = 110
skills_app = typer.Typer(help="List harvested skills, or show one.", invoke_without_command=True)


@skills_app.callback()
def skills_list(
    ctx: typer.Context,
    limit: Annotated[
        int, typer.Option(help="How many skills to list, by name (0 lists them all).", min=0)
    ] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print the skills as JSON.")] = False,
) -> None:
    """List skills with status, version, uses and last validation."""
    from browser_agent.settings import load_settings

    if ctx.invoked_subcommand:
        return
    from rich import box
    from rich.table import Column, Table

    from browser_agent.api import Agent

    every = Agent(load_settings()).skills()
    rows = every[:limit] if limit else every
    more = len(every) - len(rows)
    if as_json:
        print_json({"skills": [skill_fields(s) for s in rows], "more": max(more, 0)})
        return
    if not rows:
        console().print("No harvested skills yet: run a command, then browser-agent harvest --all.")
        return
    # on a narrow terminal the counts give way, so the command stays readable; `skills
    # show` and --json have them all
    wide = console().width >= WIDE_TERMINAL
    counts = ("version", "uses", "ok/failed", "validated") if wide else ()
    table = Table(
        Column("name", no_wrap=True),
        Column("status", no_wrap=True),
        Column("health", no_wrap=True),
        *(Column(name, no_wrap=True) for name in counts),
        Column("command", ratio=1),
        box=box.SIMPLE_HEAD,
    )
    for skill in rows:
        validated = f"{skill.last_validated_at:%Y-%m-%d %H:%M}" if skill.last_validated_at else "-"
        shown = (str(skill.version), str(skill.uses), f"{skill.successes}/{skill.failures}")
        table.add_row(
            skill.name,
            "[red]refused[/]" if skill.refused else skill.status,
            _health_cell(skill.health),
            *((*shown, validated) if wide else ()),
            escape(next(iter(skill.command_templates), "-")) + _partial_note(skill),
        )
    console().print(table)
    for skill in rows:
        if skill.refused:
            console().print(f"[red]{escape(skill.name)} is refused[/]: {escape(skill.refused)}")
    if more > 0:
        console().print(f"… and {more} more (--limit 0 lists them all).")


@skills_app.command("show")
def skills_show(
    name: Annotated[str, typer.Argument(help="The skill's name.", autocompletion=skill_names)],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the skill, its versions and source as JSON.")
    ] = False,
) -> None:
    """Print a skill's source and provenance."""
    from browser_agent.api import Agent, SkillNotFound
    from browser_agent.settings import load_settings

    try:
        skill = Agent(load_settings()).skill_info(name)
    except SkillNotFound:
        raise UserError(f"No skill {name!r}: see browser-agent skills for the names.") from None
    if as_json:
        every = [{"version": s.version, "status": s.status} for s in skill.versions]
        fields = {**skill_fields(skill), "versions": every, "source": skill.source}
        print_json({**fields, "problem": skill.refused, "health": skill.health.as_json()})
        return
    versions = ", ".join(f"v{s.version} ({s.status})" for s in skill.versions)
    status = "[red]refused[/]" if skill.refused else skill.status
    console().print(f"[bold]{skill.name}[/] v{skill.version} - {status}; versions: {versions}")
    console().print(f"commands: {escape(', '.join(skill.command_templates))}")
    if skill.partial:
        console().print(f"[yellow]{escape(_partial_note(skill).strip())}[/]")
    example = json.dumps(skill.example_args, ensure_ascii=False)
    console().print(f"example arguments: {escape(example)}")
    console().print(f"from runs: {escape(', '.join(skill.source_runs))}")
    health = skill.health
    console().print(f"health: {_health_cell(health)} ({escape(health.summary())})")
    checked = f"{skill.last_validated_at:%Y-%m-%d %H:%M}" if skill.last_validated_at else "never"
    console().print(f"last checked by replay: {checked}")
    for failure in health.failures():
        console().print(f"  {escape(failure.said())}")
    if skill.last_error:
        console().print(f"last error: {escape(skill.last_error)}")
    if skill.source is None:
        console().print(f"[red]refused: {escape(skill.refused or '')}[/]")
        return
    print_source(skill.source, console())


@skills_app.command("export")
def skills_export(
    name: Annotated[str, typer.Argument(help="The skill's name.", autocompletion=skill_names)],
    version: Annotated[
        int | None,
        typer.Option("--version", help="Which version (default: the current one).", min=1),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the script here (default: print it)."),
    ] = None,
) -> None:
    """Write a skill as a plain Playwright script (Python, async) that imports nothing of ours.

    Run it as `python FILE.py --start-url URL --PARAM VALUE...`; it prints the final page's
    address. A step no plain script can do is refused, naming the step."""
    from browser_agent.plans.export import exported_script
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store

    code = exported_script(open_store(load_settings()), name, version)
    if output is None:
        print_source(code, console())
        return
    output.write_text(code, encoding="utf-8")
    console().print(f"Wrote {escape(str(output))}: run it with python {escape(output.name)} --help")


@skills_app.command("rollback")
def skills_rollback(
    name: Annotated[str, typer.Argument(help="The skill's name.", autocompletion=skill_names)],
) -> None:
    """Make the skill's previous version current again (the current one stays, not current)."""
    from browser_agent.settings import load_settings
    from browser_agent.store.candidates import NoRollback, rollback
    from browser_agent.store.db import open_store  # the store loads only when a command runs
    from browser_agent.store.skills import skill_by_name

    engine = open_store(load_settings())
    before = skill_by_name(engine, name)
    try:
        back = rollback(engine, name)
    except NoRollback as exc:
        raise UserError(f"Cannot roll back: {exc}.") from exc
    was = f"v{before.version}" if before else "the current version"
    console().print(f"[bold]{escape(back.name)}[/] v{back.version} is current again ({was} kept).")


def _partial_note(skill: SkillInfo) -> str:
    """`` (partial: it does not …; never routed)`` for a skill that does not do its whole
    command, else nothing."""
    if not skill.partial:
        return ""
    return f" (partial, never routed: it does not {skill.lacks or 'do all of its command'})"


def _health_cell(health: Health) -> str:
    """The state, coloured: green healthy, yellow watch, red broken."""
    colour = {"healthy": "green", "watch": "yellow"}.get(health.state, "red")
    return f"[{colour}]{health.state}[/]"
