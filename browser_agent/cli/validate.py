"""``browser-agent validate``: replay harvested skills and report healthy and stale ones."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from browser_agent.cli.browser_options import (
    AllowDomainOption,
    ProfileOption,
    SecretOption,
    StorageStateOption,
)
from browser_agent.cli.cluster_options import ClusterOption, WorkersOption, check_cluster_options
from browser_agent.cli.completion import skill_names
from browser_agent.cli.json_output import print_json
from browser_agent.cli.terminal import console
from browser_agent.secrets import configured as configured_secrets

if TYPE_CHECKING:
    from browser_agent.settings import Settings
    from browser_agent.validate.validator import Checked, Report


NamesArgument = Annotated[
    list[str] | None, typer.Argument(help="Skills to validate.", autocompletion=skill_names)
]
AllOption = Annotated[bool, typer.Option("--all", help="Validate every current skill.")]
ConcurrencyOption = Annotated[
    int, typer.Option(min=1, help="Skills replayed at once, each in its own context.")
]
ReharvestOption = Annotated[
    bool,
    typer.Option(
        "--reharvest",
        help="Give each stale skill a new version (from a newer successful run of its "
        "command shape, else from healed selectors); it becomes current if it passes.",
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option("--url", help="Replay against this base URL instead of the recorded site."),
]
ReportOption = Annotated[
    Path | None, typer.Option("--report", help="Also write the JSON report to this file.")
]


def validate_command(
    names: NamesArgument = None,
    all_skills: AllOption = False,
    concurrency: ConcurrencyOption = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    reharvest: ReharvestOption = False,
    url: BaseUrlOption = None,
    report: ReportOption = None,
    allow_domain: AllowDomainOption = None,
    secret: SecretOption = None,
    profile: ProfileOption = None,
    storage_state: StorageStateOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
) -> None:
    """Replay harvested skills with their example arguments and mark stale ones.

    Exit code 0 when all pass, 1 when any is stale, 2 when validation could not run.
    With --workers or --cluster each replay is a job on a Dask worker (--concurrency
    replays at once on each).
    """
    # the validator (browser, store, harvester) loads only when validating
    from browser_agent.cli.progress import counting
    from browser_agent.errors import BrowserError
    from browser_agent.settings import load_settings
    from browser_agent.validate.lock import LockHeld
    from browser_agent.validate.validator import CannotValidate, run_validation

    secrets = configured_secrets(secret)
    settings = load_settings().with_overrides(
        allowed_domains=allow_domain or None, profile=profile, storage_state=storage_state
    )
    in_one_process = bool(reharvest or secret or profile or storage_state)
    url = _checked_options(settings, url, workers, cluster, in_one_process)
    progress = counting("validating", Console(stderr=True), as_json)
    task = progress.add_task("", total=None)

    def started(count: int) -> None:
        progress.update(task, total=count)

    def done(checked: Checked) -> None:
        progress.update(task, advance=1, description=checked.name)

    try:
        with progress:
            if workers or cluster:  # each replay a job on a Dask worker
                from browser_agent.cluster.validation import validate_on_cluster

                result = validate_on_cluster(
                    settings,
                    names or [],
                    all_skills=all_skills,
                    base_url=url,
                    workers=workers,
                    address=cluster,
                    slots=concurrency,
                    on_start=started,
                    on_done=done,
                )
            else:
                result = asyncio.run(
                    run_validation(
                        settings,
                        names or [],
                        all_skills=all_skills,
                        concurrency=concurrency,
                        base_url=url,
                        reharvest=reharvest,
                        on_start=started,
                        on_done=done,
                        secrets=secrets,
                    )
                )
    except (CannotValidate, LockHeld, BrowserError) as exc:
        typer.secho(f"Validation could not run: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc
    _report(result, report, as_json)
    raise typer.Exit(result.exit_code())


def _checked_options(
    settings: Settings,
    url: str | None,
    workers: int | None,
    cluster: str | None,
    in_one_process: bool,
) -> str | None:
    """``--url`` as a base URL the browser may open, once the options are known to go
    together; a mistake ends the command in one line, exit code 2."""
    if url:  # said in one line, as run and dom say it
        from browser_agent.sites.policy import openable

        url = openable(url, settings)
    check_cluster_options(workers, cluster)
    if (workers or cluster) and in_one_process:
        typer.secho(
            "Validation could not run: --reharvest, --secret, --profile and --storage-state "
            "work in one process; on a cluster, secrets come from the workers' environment",
            fg="red",
            err=True,
        )
        raise typer.Exit(2)
    return url


def _report(result: Report, report: Path | None, as_json: bool) -> None:
    """The report: written to ``report`` when asked, printed as JSON or as a table."""
    data = result.as_dict()
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(json.dumps(data, indent=2), encoding="utf-8")
    if as_json:
        print_json(data)
    else:
        _print(result)


def _print(result: Report) -> None:
    """A table of verdicts, then one line per problem: error, screenshot, new version."""
    from rich.table import Column, Table

    from browser_agent.validate.validator import HEALTHY, REFUSED, SECRET, STALE

    colours = {HEALTHY: "green", STALE: "red", REFUSED: "red", SECRET: "yellow"}
    if not result.checked:
        console().print("No skills to validate.")
        return
    table = Table(
        Column("skill", no_wrap=True), "v", Column("verdict", no_wrap=True), "failed at", "seconds"
    )
    for checked in sorted(result.checked, key=lambda c: c.name):
        colour = colours.get(checked.verdict, "magenta")
        where = f"step {checked.step}: {checked.selector}" if checked.step else ""
        table.add_row(
            escape(checked.name),
            str(checked.version),
            f"[{colour}]{checked.verdict}[/]",
            escape(where),
            f"{checked.seconds:.2f}",
        )
    console().print(table)
    for checked in sorted(result.checked, key=lambda c: c.name):
        for line in _details(checked):
            console().print(f"[bold]{escape(checked.name)}[/]: {escape(line)}")
    console().print(
        f"{len(result.checked)} skills in {result.seconds:.1f} s "
        f"(concurrency {result.concurrency})."
    )


def _details(checked: Checked) -> list[str]:
    """The error (for a skill not replayed, the secret it lacks), the screenshot, and what
    became of a renewed version."""
    lines = [checked.error] if checked.error else []
    if checked.screenshot:
        lines.append(f"screenshot {checked.screenshot}")
    if checked.renewed:
        new = checked.renewed
        state = "now current and healthy" if new.passed else f"not current, it failed: {new.error}"
        lines.append(f"version {new.version} from {new.source}: {state}")
    if checked.health and checked.health["state"] != "healthy":
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(checked.health["counts"].items()))
        lines.append(f"health: {checked.health['state']} ({counts} of the last runs)")
    if checked.candidate:
        waited = checked.candidate
        state = (
            "now current"
            if waited.get("current")
            else f"{waited.get('passes', 0)} of {waited.get('needed')} passes before it is current"
        )
        lines.append(f"candidate v{waited['version']}: {waited.get('verdict', 'error')}, {state}")
    return lines
