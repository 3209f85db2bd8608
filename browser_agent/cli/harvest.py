"""``browser-agent harvest``: turn successful runs into skills, and say what each source gave."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from browser_agent.cli.completion import run_ids
from browser_agent.cli.json_output import print_json
from browser_agent.cli.terminal import console, err_console, print_source
from browser_agent.errors import UserError
from browser_agent.harvest.outcomes import (
    ALREADY,
    FAILED,
    NEW_SKILL,
    NEW_VERSION,
    SKIPPED,
    UNCHANGED,
)

if TYPE_CHECKING:
    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.settings import Settings


def _sources(items: list[str], all_runs: bool) -> list[Path]:
    """Log files for run ids and paths; with --all, every successful run's log. UserError
    naming the items that are neither a file nor a run."""
    from browser_agent.settings import load_settings
    from browser_agent.store.run_logs import log_file
    from browser_agent.store.run_rows import succeeded_runs
    from browser_agent.store.run_store import open_run_store

    settings = load_settings()
    paths, missing = [], []
    for item in items:
        path = Path(item)
        if not path.exists() and path.suffix != ".json":
            found = _run_log(item, settings)
            if found is None:
                missing.append(item)
            path = found or path
        elif not path.exists():
            missing.append(item)
        paths.append(path)
    if missing:
        raise UserError(
            f"No log file or run {', '.join(map(repr, missing))}: name log files or run ids "
            "(browser-agent runs lists them)"
        )
    if all_runs:
        store = open_run_store(settings)
        try:
            runs = [run for run in succeeded_runs(store) if run.log_path]
            paths += [log_file(store, run, settings.workspace) for run in runs]
        finally:
            store.close()
    return paths


def _run_log(run_id: str, settings: Settings) -> Path | None:
    """A run's chat log: in this workspace's ``logs/``, else the store's copy of a run made
    on another machine (written here), else the path where it would be; None when there
    is no such run."""
    from browser_agent.store.run_logs import log_file
    from browser_agent.store.run_rows import run_row
    from browser_agent.store.run_store import open_run_store

    path = settings.logs_dir / f"{run_id}.json"
    if path.exists():
        return path
    store = open_run_store(settings)
    try:
        run = run_row(store, run_id)
        return log_file(store, run, settings.workspace) if run else None
    finally:
        store.close()


def harvest_command(
    sources: Annotated[
        list[str] | None,
        typer.Argument(help="Run ids or chat-log files to harvest.", autocompletion=run_ids),
    ] = None,
    all_runs: Annotated[bool, typer.Option("--all", help="Harvest every successful run.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the code it would generate, each distinct module once with the runs "
            "that give it (plain source on stdout when it is not a terminal); write nothing.",
        ),
    ] = False,
    verify: Annotated[bool, typer.Option(help="Replay each new skill at once.")] = True,
    again: Annotated[
        bool,
        typer.Option(
            "--again",
            help="Harvest sources that were harvested before too (they are passed over "
            "otherwise; sources whose harvesting failed are always tried again).",
        ),
    ] = False,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            help="What the logs' runs were asked to do, for logs that do not say it "
            "themselves (a browser-use history); it names their parameters.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the outcomes (and dry-run modules) as JSON.")
    ] = False,
) -> None:
    """Turn successful runs into typed async skills in skills/harvested/.

    Each run is harvested once: later batches pass over it. A run of a command shape that
    has a skill becomes its next version, or only one more source of it when the code
    would be the same. Ends with a summary line; exit code 1 when nothing could be
    harvested from any source.
    """
    # the harvester (libcst, the browser) loads only when harvesting
    from browser_agent.cli.progress import counting
    from browser_agent.harvest.harvester import harvest
    from browser_agent.settings import load_settings
    from browser_agent.store.db import open_store

    paths = _sources(sources or [], all_runs)
    if not paths:
        raise UserError("Nothing to harvest: name run ids or log files, or use --all.")
    settings = load_settings()
    progress = counting("harvesting", err_console(), as_json)
    task = progress.add_task("", total=len(paths))

    def taken_up(source: Path) -> None:
        progress.update(task, description=source.name)
        progress.advance(task)

    with progress:
        results = asyncio.run(
            harvest(
                paths,
                settings,
                open_store(settings),
                dry_run=dry_run,
                verify=verify,
                again=again,
                command=command,
                on_source=taken_up,
            )
        )
    if as_json:
        print_json(_as_json(results, dry_run))
    else:
        _print_outcomes(results, dry_run)
    if not any(r.skill or r.code or r.outcome == ALREADY for r in results):
        raise typer.Exit(1)


def _print_outcomes(results: list[HarvestResult], dry_run: bool) -> None:
    """Each source's outcome, then the summary line. A dry run's reports go to stderr and
    its modules to stdout, so ``harvest --dry-run > skill.py`` keeps only the code."""
    from browser_agent.harvest.harvester import same_modules

    made = (NEW_SKILL, NEW_VERSION)
    said = err_console() if dry_run else console()
    for result in results:
        if result.outcome in (SKIPPED, FAILED) or (result.outcome in made and not dry_run):
            _report(result, said)
    if dry_run:
        for group in same_modules(results):
            _report_module(group)
    else:
        for group in _by_skill(r for r in results if r.outcome == UNCHANGED):
            _report_unchanged(group)
    said.print(summary(results, dry_run))


def _as_json(results: list[HarvestResult], dry_run: bool) -> dict[str, object]:
    """The batch as one JSON document: the summary, counts by outcome, each source's
    outcome and, for a dry run, each distinct module with the sources that give it."""
    from browser_agent.harvest.harvester import same_modules

    data: dict[str, object] = {
        "dry_run": dry_run,
        "summary": summary(results, dry_run, markup=False),
        "counts": dict(Counter(r.outcome for r in results)),
        "results": [_result_fields(r) for r in results],
    }
    if dry_run:
        data["modules"] = [
            {
                "name": group[0].name,
                "outcome": group[0].outcome,
                "sources": [r.source for r in group],
                "code": group[0].code,
            }
            for group in same_modules(results)
        ]
    return data


def _result_fields(result: HarvestResult) -> dict[str, object]:
    """One source's outcome: the skill (name, version, module) it made or joined, whether
    its replay passed, or why it has none."""
    skill = result.skill
    return {
        "source": result.source,
        "outcome": result.outcome,
        "name": skill.name if skill else result.name,
        "version": skill.version if skill else None,
        "module_path": skill.module_path if skill else None,
        "verified": result.verified,
        "verify_error": result.verify_error,
        "verified_on": result.verified_on,
        "reason": result.reason,
        "error": result.error,
        "earlier": result.earlier,
        "dropped": result.dropped,
        "readings": result.readings,
    }


def _report(result: HarvestResult, said: Console | None = None) -> None:
    """One source's outcome: the skill it made or joined, or why it has none."""
    said = said or console()
    if result.outcome == FAILED:
        said.print(f"[red]failed[/] {escape(result.error or '')}")
    elif result.error:
        said.print(f"[yellow]skipped[/] {escape(result.error)}")
    elif result.skill:
        skill = result.skill
        state = {True: "[green]verified, healthy[/]", False: "[yellow]not verified[/]"}
        note = state.get(result.verified, "candidate")
        reason = f" ({escape(result.verify_error)})" if result.verify_error else ""
        if result.verified_on:
            reason = f" (replayed on what {escape(result.verified_on)} made for it)"
        said.print(
            f"[bold]{skill.name}[/] v{skill.version} ({result.outcome}): {note}{reason}\n"
            f"  {escape(json.loads(skill.command_templates)[0])}\n  {skill.module_path}"
        )
    for reading in result.readings:
        said.print(f"  [cyan]reading[/] {escape(reading)}")
    for dropped in result.dropped:
        said.print(f"  [yellow]left out[/] {escape(dropped)}")


def _by_skill(results: Iterable[HarvestResult]) -> list[list[HarvestResult]]:
    """Results grouped by the skill version they name, in the order first seen."""
    groups: dict[tuple[str, int], list[HarvestResult]] = {}
    for result in results:
        if result.skill is not None:
            groups.setdefault((result.skill.name, result.skill.version), []).append(result)
    return list(groups.values())


def _report_unchanged(group: list[HarvestResult]) -> None:
    """Sources that gave the code a skill already has: one line for all of them."""
    skill = group[0].skill
    if skill is None:
        return
    console().print(
        f"[bold]{skill.name}[/] v{skill.version}: unchanged, the same code from "
        f"{_some(group)}; recorded as {'its sources' if len(group) > 1 else 'a source'}"
    )


def _some(group: list[HarvestResult], shown: int = 3) -> str:
    """``a.json``, or ``2,000 runs (a.json, b.json, c.json and 1,997 more)``."""
    if len(group) == 1:
        return escape(group[0].source)
    names = ", ".join(escape(r.source) for r in group[:shown])
    more = f" and {len(group) - shown:,} more" if len(group) > shown else ""
    return f"{len(group):,} runs ({names}{more})"


def _report_module(group: list[HarvestResult]) -> None:
    """A module a dry run generated, once for all the runs that give it: what it is on
    stderr, the code on stdout."""
    first = group[0]
    what = {
        NEW_SKILL: f"[bold]would write[/] a new skill {escape(first.name or '')}",
        NEW_VERSION: f"[bold]would write[/] a new version of {escape(first.name or '')}",
    }.get(first.outcome, f"[bold]unchanged[/] {escape(first.name or '')} already has this module")
    runs = f"same module from {_some(group)}" if len(group) > 1 else f"from {_some(group)}"
    err_console().print(f"{what}; {runs}:")
    print_source(first.code or "", console())


def summary(results: list[HarvestResult], dry_run: bool = False, markup: bool = True) -> str:
    """One line: new skills, new versions, unchanged, already harvested, skipped (with
    their reasons) and failed sources of a batch (escaped for rich unless not ``markup``)."""
    count = Counter(r.outcome for r in results)
    lead = "Dry run (nothing written) of" if dry_run else "Harvest of"
    parts = [
        f"{count[NEW_SKILL]} new {'skill' if count[NEW_SKILL] == 1 else 'skills'}",
        f"{count[NEW_VERSION]} new {'version' if count[NEW_VERSION] == 1 else 'versions'}",
        f"{count[UNCHANGED]} unchanged",
        f"{count[ALREADY]} already harvested"
        + (" (--again harvests them anew)" * bool(count[ALREADY])),
        f"{count[SKIPPED]} skipped" + _reasons(r for r in results if r.outcome == SKIPPED),
    ]
    if count[FAILED]:
        parts.append(
            f"{count[FAILED]} failed" + _reasons(r for r in results if r.outcome == FAILED)
        )
    earlier = sum(1 for r in results if r.earlier)
    if earlier:
        parts.append(f"{earlier} of them harvested before (harvest passes over them)")
    line = f"{lead} {len(results):,} sources: {', '.join(parts)}."
    return escape(line) if markup else line


def _reasons(results: Iterable[HarvestResult], shown: int = 3) -> str:
    """The most frequent reasons, with how many sources each, in brackets."""
    common = Counter(r.reason or "no reason given" for r in results).most_common()
    if not common:
        return ""
    said = [f"{n} × {reason}" if n > 1 else reason for reason, n in common[:shown]]
    if len(common) > shown:
        said.append(f"{sum(n for _r, n in common[shown:])} for other reasons")
    return f" ({'; '.join(said)})"
