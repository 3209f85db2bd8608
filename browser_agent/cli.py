"""The browser-agent command line."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

# Only what `--help` needs is imported here: the settings (pydantic), the browser, the
# store, the planner, the harvester and the model clients load inside the commands that
# use them, so `--help` and a routed run start fast.
from browser_agent import ENV_PREFIX
from browser_agent.browser.chromium import find_chromium
from browser_agent.cli_group import OneLineErrors
from browser_agent.cluster.cli import batch_command
from browser_agent.completion import run_ids, skill_names
from browser_agent.console.serve import serve_command
from browser_agent.demo import FIRST_COMMAND, SECOND_COMMAND
from browser_agent.errors import BrowserError, UserError, one_line
from browser_agent.feedback.cli import feedback_app
from browser_agent.harvest.cli import harvest_command, skills_app
from browser_agent.json_output import print_json, run_fields, step_fields
from browser_agent.llm.choose import OFFLINE_MODEL, is_offline, make_llm
from browser_agent.mcp_server import mcp_command
from browser_agent.memory.cli import app as memory_app
from browser_agent.ports import checked_port
from browser_agent.prices import cost_of_run, priced, shown_cost
from browser_agent.profile_options import ProfileOption, StorageStateOption
from browser_agent.record.cli import record_command
from browser_agent.record.teach_cli import teach_command
from browser_agent.secrets import OPTION_HELP as SECRET_HELP
from browser_agent.secrets import configured as configured_secrets
from browser_agent.secrets import unconfigured_in
from browser_agent.site_policy import ALLOW_DOMAIN_HELP, command_urls_refused, openable
from browser_agent.store.cli import db_app
from browser_agent.terminal import console
from browser_agent.validate.cli import validate_command
from browser_agent.watch.cli import app as watch_app

if TYPE_CHECKING:
    from collections.abc import Callable

    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.llm.types import LLMClient
    from browser_agent.planner.agent import RunResult
    from browser_agent.settings import Settings
    from browser_agent.store.rows import StepRow


MODEL_HELP = "Model at the endpoint; 'offline' for the built-in planner (the default without one)."


app = typer.Typer(
    cls=OneLineErrors,
    help="A browser agent that carries out web commands and learns skills from its runs.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(memory_app, name="memory")
app.command("harvest")(harvest_command)
app.add_typer(skills_app, name="skills")
app.command("validate")(validate_command)
app.command("record")(record_command)
app.command("teach")(teach_command)
app.command("serve")(serve_command)
app.command("batch")(batch_command)
app.add_typer(watch_app, name="watch")
app.add_typer(db_app, name="db", help="The store's schema revision; upgrading it.")
app.add_typer(feedback_app, name="feedback")
app.command("mcp")(mcp_command)


def _print_version(asked: bool) -> None:
    """``--version``: print ``browser-agent X.Y.Z`` and stop."""
    if asked:
        typer.echo(f"browser-agent {_version('browser-agent')}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace",
            file_okay=False,
            help="Workspace folder (logs, skills, store) for this command; "
            "overrides BROWSER_AGENT_WORKSPACE.",
        ),
    ] = None,
    browser_endpoint: Annotated[
        str | None,
        typer.Option(
            "--browser-endpoint",
            metavar="URL",
            help="Drive a browser already running: a Chrome DevTools address "
            "(http://HOST:9222, ws://HOST:9222) or a Playwright server's ws:// URL; "
            "overrides BROWSER_AGENT_BROWSER_ENDPOINT.",
        ),
    ] = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")
    ] = False,
    _version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version."
        ),
    ] = False,
) -> None:
    """Apply the global options and check the settings before any command runs (``run``
    checks them itself, while its browser starts)."""
    if workspace is not None:
        _set_env_while_running(ctx, f"{ENV_PREFIX}WORKSPACE", str(workspace.expanduser().resolve()))
    if browser_endpoint is not None:
        _set_env_while_running(ctx, f"{ENV_PREFIX}BROWSER_ENDPOINT", browser_endpoint)
    if ctx.invoked_subcommand != "run":
        checked_settings()


def checked_settings() -> Settings:
    """The settings; one that cannot be used (a workspace folder that cannot be made among
    them) ends the command in one line, exit code 2."""
    from browser_agent.settings import SettingsError, load_settings

    try:
        settings = load_settings()
        usable_workspace(settings.workspace)
    except SettingsError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from None
    return settings


def usable_workspace(folder: Path) -> None:
    """SettingsError when the workspace folder is not there and cannot be made: its first
    missing folder is made and removed again (a command that never writes, such as
    ``info``, leaves nothing behind)."""
    from browser_agent.settings import SettingsError

    missing = folder
    while not missing.parent.exists() and missing.parent != missing:
        missing = missing.parent
    try:
        if not folder.is_dir():
            missing.mkdir()
            missing.rmdir()
    except OSError as exc:
        raise SettingsError(
            f"{ENV_PREFIX}WORKSPACE (or --workspace): the folder {folder} cannot be made "
            f"({exc.strerror or exc}); name a folder you can write"
        ) from None


def _set_env_while_running(ctx: typer.Context, name: str, value: str) -> None:
    """Set an environment variable until this command line is done; every settings read
    of the command (and any worker process it starts) sees it."""
    before = os.environ.get(name)
    os.environ[name] = value

    def restore() -> None:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before

    ctx.call_on_close(restore)


@app.command("demo-site")
def demo_site(
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0 picks a free one).")
    ] = 8811,
    variant: Annotated[
        str, typer.Option(help="'normal', or 'redesign' to rename ids and move elements.")
    ] = "normal",
    latency_ms: Annotated[
        int, typer.Option(min=0, help="Hold every response back this long, as a far site would.")
    ] = 0,
) -> None:
    """Serve the bundled demo shoe shop until stopped (Ctrl-C)."""
    from browser_agent.demo_site import start_demo_site

    site = start_demo_site(port=port, variant=variant, latency_ms=latency_ms)
    try:  # printed inside: a Ctrl-C right after the address is read still stops cleanly
        typer.echo(f"Demo shop ({site.variant}) at {site.url} - press Ctrl-C to stop.")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        typer.echo("Stopped.")
    finally:
        site.stop()


@app.command()
def dom(
    url: Annotated[str, typer.Argument(help="The page to look at.")],
    content_type: Annotated[
        str, typer.Option("--content-type", "-t", help="text_only, input_fields or all_fields.")
    ] = "all_fields",
    allow_domain: Annotated[
        list[str] | None, typer.Option("--allow-domain", help=ALLOW_DOMAIN_HELP)
    ] = None,
) -> None:
    """Print the distilled DOM of a page, as the planner sees it."""
    from browser_agent.browser.session import browser_session
    from browser_agent.dom.observe import observe_page
    from browser_agent.settings import load_settings
    from browser_agent.skills.primitive.open_url import open_url

    settings = load_settings().with_overrides(allowed_domains=allow_domain or None)
    target = openable(url, settings)

    async def show() -> str:
        async with browser_session(settings) as active:
            await open_url(target)
            return (await observe_page(active, content_type)).text

    try:
        typer.echo(asyncio.run(show()))
    except (BrowserError, ValueError) as exc:
        typer.secho(f"Error: {one_line(exc)}", fg="red", err=True)
        raise typer.Exit(2) from exc
    except Exception as exc:  # an ActionError from open_url or the page read, for people
        typer.secho(f"Error: {one_line(exc)}", fg="red", err=True)
        raise typer.Exit(1) from exc


def _with_spinner(llm: LLMClient, as_json: bool = False) -> LLMClient:
    """``llm`` showing a spinner on stderr while it answers, on a terminal only."""
    from browser_agent.progress import waiting_for_model

    return waiting_for_model(llm, Console(stderr=True), as_json)


def _target(arguments: str) -> str:
    """The most telling argument of a step, for the progress line."""
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return arguments[:40]
    if not isinstance(parsed, dict):
        return ""
    for key in ("url", "selector", "text_selector", "content_type", "option", "keys", "answer"):
        if key in parsed:
            return str(parsed[key])[:50]
    return ""


def _print_step(step: StepRow) -> None:
    """One line per step: tool, target, outcome, time, and the start of the answer."""
    mark = "[green]ok[/]   " if step.ok else "[red]error[/]"
    response = " ".join(step.response.split())
    console().print(
        f"{step.index:>3} {step.tool:<20} {escape(_target(step.arguments)[:26]):<26} {mark} "
        f"{step.duration_s:5.2f}s [dim]{escape(response[:200])}[/]",
        no_wrap=True,
        overflow="ellipsis",
    )


# How a run's status reads: done, ended but not shown done (unverified), anything else.
STATUS_COLOURS = {"succeeded": "green", "unverified": "yellow"}


def print_summary(result: RunResult) -> None:
    """The matching skills the run passed over and why, the answer and what the run cost."""
    for passed in result.passed_over:
        console().print(f"[yellow]{escape(passed.said())}[/]", overflow="fold")
    colour = STATUS_COLOURS.get(result.status, "red")
    console().print(f"\n[bold {colour}]{result.status}[/]: {escape(result.answer)}")
    console().print(
        f"[dim]run {result.run_id}: {result.steps} steps, "
        f"{result.llm_calls} LLM calls ({escape(result.model)}), "
        f"{result.prompt_tokens + result.completion_tokens} tokens{_cost(result.cost_usd)}, "
        f"{result.seconds:.1f} s; "
        f"log {result.log_path}[/]"
    )


def _cost(cost: float | None) -> str:
    """``, $0.0123`` after a count of tokens; nothing when the model has no price."""
    return f", {shown_cost(cost)}" if cost is not None else ""


async def run_started_early(
    command: str,
    load: Callable[[], Settings],
    make_client: Callable[[Settings], LLMClient],
    **options: Any,
) -> RunResult:
    """``run_command`` on a Chromium whose driver starts first, while the settings (from
    ``load``), the store and the planner load; Chromium launches as soon as the settings
    say how, and the run opens its store and routes the command while it starts. The
    browser's start-up and Python's work overlap instead of adding up."""
    from browser_agent.browser.early import browser_while_importing

    planner = "browser_agent.planner.agent"
    async with browser_while_importing(load, planner) as (settings, browser):
        from browser_agent.planner.agent import run_command

        llm = make_client(settings)
        return await run_command(command, llm, settings, browser=browser, **options)


@app.command()
def run(
    command: Annotated[
        str, typer.Argument(help="What to do, in plain words; - reads it from standard input.")
    ],
    url: Annotated[str | None, typer.Option("--url", help="Page to start from.")] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Stop after this many tool calls.")] = 30,
    headed: Annotated[bool, typer.Option(help="Show the browser window.")] = False,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    text_actions: Annotated[
        bool, typer.Option(help="For models without tool calling: plain-text actions.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    allow_domain: Annotated[
        list[str] | None, typer.Option("--allow-domain", help=ALLOW_DOMAIN_HELP)
    ] = None,
    secret: Annotated[list[str] | None, typer.Option("--secret", help=SECRET_HELP)] = None,
    profile: ProfileOption = None,
    storage_state: StorageStateOption = None,
    approve: Annotated[
        bool,
        typer.Option(
            "--approve",
            help="Ask on stdin before each action that submits a form, buys, deletes or sends; "
            "a no (with a note for the agent) is not done.",
        ),
    ] = False,
    review: Annotated[
        bool,
        typer.Option(
            "--review",
            help="As --approve, for every action that does something (not only weighty "
            "ones); each decision is kept with the run.",
        ),
    ] = False,
) -> None:
    """Carry out a web command with the planner; every step is logged and stored.

    Secrets (passwords, keys) go in with --secret and are named in the command as {NAME};
    a value the command gives after "password", "PIN", "token" or "API key" is kept out
    of every log the same way."""
    from browser_agent.planner.approval import approver, ask_on_stdin
    from browser_agent.planner.people import console_channel
    from browser_agent.planner.signals import Interrupted, run_to_end

    command = command_text(command, approve or review)
    if not command.strip():
        typer.secho("Error: the command is empty: say what the agent should do.", err=True)
        raise typer.Exit(2)
    secrets = configured_secrets(secret)
    unconfigured_in(command, secrets)

    loaded: list[Settings] = []
    started: list[str] = []  # the run's id, once its row is in the store

    def load() -> Settings:  # while the browser's driver starts
        settings = checked_settings().with_overrides(
            allowed_domains=allow_domain or None, profile=profile, storage_state=storage_state
        )
        if url:
            try:
                checked_port(url)
            except ValueError as exc:
                raise UserError(f"--url {url}: {exc}") from None
            openable(url, settings)
        command_urls_refused(command, settings)
        loaded.append(settings.with_overrides(headed=True) if headed else settings)
        return loaded[-1]

    def make_client(settings: Settings) -> LLMClient:
        return _with_spinner(make_llm(settings, model, text_actions), as_json)

    interactive = sys.stdin.isatty() and not as_json
    try:
        result = run_to_end(
            run_started_early(
                command,
                load,
                make_client,
                start_url=url,
                max_steps=max_steps,
                channel=console_channel(interactive),
                on_step=None if as_json else _print_step,
                secrets=secrets,
                approve=approver(ask_on_stdin, every=review) if approve or review else None,
                leave=ask_on_stdin if interactive else None,
                on_start=started.append,
            )
        )
    except Interrupted as exc:  # Ctrl-C or SIGTERM: the run is stored as interrupted
        typer.secho(str(exc), fg="yellow", err=True)
        if as_json and loaded and started:
            print_json(interrupted_json(loaded[0], started[0], str(exc)))
        raise typer.Exit(exc.exit_code) from None
    except Exception as exc:  # said in one line (cli_group); --json still prints the run
        if as_json and loaded and started:
            print_json(interrupted_json(loaded[0], started[0], one_line(exc)))
        raise
    if as_json:
        print_json(asdict(result))
    else:
        print_summary(result)
    raise typer.Exit(0 if result.status == "succeeded" else 1)


def command_text(command: str, asks: bool = False) -> str:
    """The command as typed, or read from standard input when it is ``-`` (``echo "find
    trail shoes" | browser-agent run -``); UserError when it is, and ``asks`` (``--approve``,
    ``--review``) would need standard input for the answers too."""
    if command != "-":
        return command
    if asks:
        raise UserError(
            "--approve and --review ask on standard input, and - reads the command from it: "
            "give the command as an argument"
        )
    return sys.stdin.read().strip()


def interrupted_json(settings: Settings, run_id: str, said: str) -> dict[str, object]:
    """What ``run --json`` prints for a run stopped by a signal or an error: the run as it
    was stored (status ``interrupted`` or ``failed``, the steps and model calls it made)."""
    from browser_agent.store.run_rows import run_row
    from browser_agent.store.run_store import open_run_store

    run = run_row(open_run_store(settings), run_id)
    fields = run.as_json() if run is not None else {"id": run_id, "status": "interrupted"}
    return {"run_id": run_id, **fields, "error": fields.get("error") or said}


@app.command()
def demo(
    first: Annotated[str, typer.Argument(help="The first command.")] = FIRST_COMMAND,
    second: Annotated[
        str, typer.Argument(help="A command of the same shape with other values.")
    ] = SECOND_COMMAND,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    headed: Annotated[bool, typer.Option(help="Show the browser window.")] = False,
) -> None:
    """Run a command in the demo shop, harvest it into a skill, then run a second command
    of the same shape through the skill and compare the two runs.

    Logs, the skill and the database go to a fresh temporary workspace.
    """
    from browser_agent.demo import tour
    from browser_agent.settings import load_settings

    workspace = Path(tempfile.mkdtemp(prefix="browser-agent-demo-"))
    settings = load_settings().with_overrides(workspace=workspace)
    if headed:
        settings = settings.with_overrides(headed=True)
    llm = _with_spinner(make_llm(settings, model))
    shown = asyncio.run(
        tour(
            llm,
            settings,
            first,
            second,
            on_step=_print_step,
            on_stage=lambda text: console().print(f"\n[bold]{escape(text)}[/]"),
        )
    )
    print_summary(shown.first)
    for result in shown.harvested:
        _report_harvest(result)
    if shown.second is not None:
        print_summary(shown.second)
        _compare(shown.first, shown.second)
    console().print(f"[dim]Logs, skill and database of this demo: {workspace}[/]")
    ok = shown.second is not None and shown.second.status == "succeeded"
    raise typer.Exit(0 if ok else 1)


def _report_harvest(result: HarvestResult) -> None:
    if result.skill is None:
        console().print(f"[yellow]No skill harvested:[/] {escape(result.error or '')}")
        return
    from browser_agent.record.teach import verdict

    said = escape(verdict(result))
    console().print(f"Harvested [bold]{result.skill.name}[/] ({said}): {result.skill.module_path}")


def _compare(first: RunResult, second: RunResult) -> None:
    """The two runs side by side: what the skill saved."""
    from rich.table import Table

    table = Table(
        "",
        "first run (planner)",
        "second run",
        title="Before and after harvesting",
        caption="Each model call of a hosted LLM adds its latency (often 1-5 s) to the first run.",
    )
    table.add_row("LLM calls", str(first.llm_calls), str(second.llm_calls))
    table.add_row("steps", str(first.steps), str(second.steps))
    table.add_row(
        "tokens",
        str(first.prompt_tokens + first.completion_tokens),
        str(second.prompt_tokens + second.completion_tokens),
    )
    table.add_row("seconds", f"{first.seconds:.1f}", f"{second.seconds:.1f}")
    table.add_row("cost", shown_cost(first.cost_usd), shown_cost(second.cost_usd))
    table.add_row("outcome", first.status, second.status)
    console().print(table)


@app.command()
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

    from browser_agent.run_lookup import RunFilter, filtered_runs
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


@app.command()
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

    from browser_agent.run_lookup import one_run
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
    cost = _cost(cost_of_run(found, settings.prices))
    console().print(f"[bold]{escape(found.command)}[/] ({found.status}, model {found.model}{cost})")
    for step in steps:
        mark = "ok" if step.ok else "error"
        console().print(f"{step.index:>3} {step.tool}({escape(step.arguments)}) {mark}")
        console().print(f"    [dim]{escape(step.response[:300])}[/]")
    console().print(f"Answer: {escape(found.answer or '')}\nLog: {log}")


@app.command()
def info(
    as_json: Annotated[bool, typer.Option("--json", help="Print the values as JSON.")] = False,
) -> None:
    """Print the workspace, store, browser and model in use, for a bug report.

    Passwords and keys are never printed: a store or endpoint URL shows its password
    as ***, and the API key only as set or not set.
    """
    from browser_agent.settings import load_settings

    facts = environment_info(load_settings())
    if as_json:
        print_json(facts)
        return
    width = max(len(key) for key in facts)
    for key, value in facts.items():
        typer.echo(f"{key:<{width}}  {value}")


def environment_info(settings: Settings) -> dict[str, str]:
    """What this installation uses, with every secret masked."""
    from browser_agent.settings import mask_url

    offline = is_offline(settings)
    endpoint = settings.llm_base_url or "https://api.openai.com/v1 (OpenAI's default)"
    return {
        "browser-agent": _version("browser-agent"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "playwright": _version("playwright"),
        "workspace": str(settings.workspace),
        "store": mask_url(settings.db_url),
        "browser": _browser_in_use(settings),
        "model": OFFLINE_MODEL if offline else settings.llm_model,
        "llm_endpoint": "none" if offline else mask_url(endpoint),
        "llm_api_key": "set" if settings.llm_api_key else "not set",
    }


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _browser_in_use(settings: Settings) -> str:
    """The remote endpoint, or the Chromium executable a run would launch, and how."""
    from browser_agent.settings import mask_url

    if settings.browser_endpoint:
        return f"remote: {mask_url(settings.browser_endpoint)}"
    bundled = None if settings.chromium_path else _playwright_chromium()
    try:
        found = find_chromium(settings.chromium_path, bundled, headless=settings.headless)
        found = found or bundled
    except BrowserError as exc:
        return f"none found: {exc}"
    return f"{found} ({'headed' if settings.headed else 'headless'})"


def _playwright_chromium() -> str | None:
    """Where Playwright keeps its own Chromium (it may not be downloaded)."""
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            return playwright.chromium.executable_path
    except Exception:  # a broken Playwright install: fall back to a system Chromium
        return None


def entry() -> None:
    """The ``browser-agent`` command: ``app``, then a quick end of the process.

    What the command line has loaded lives until the process ends, so it is frozen out of
    the garbage collector's passes first: a routed run spent 50 ms collecting it again."""
    gc.freeze()
    try:
        app()
    finally:
        _before_exit()


def _before_exit() -> None:
    """Close the store's connections, then keep what the command loaded out of the garbage
    collector's passes at exit: for a routed run that is about 110,000 objects, and the
    passes took a quarter of a second, as long as the run's page actions."""
    run_store = sys.modules.get("browser_agent.store.run_store")  # not for --help
    if run_store is not None:
        run_store.close_stores()
    db = sys.modules.get("browser_agent.store.db")  # not for a run on a current store
    if db is not None:
        db.close_engines()
    gc.freeze()


if __name__ == "__main__":
    entry()
