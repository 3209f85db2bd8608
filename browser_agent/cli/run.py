"""``run``, a web command carried out with the planner, and ``demo``, a run harvested into
a skill and a second run through it: what they print while running and at the end."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from browser_agent.cli.browser_options import (
    AllowDomainOption,
    ProfileOption,
    SecretOption,
    StorageStateOption,
)
from browser_agent.cli.checked_settings import checked_settings
from browser_agent.cli.json_output import print_json
from browser_agent.cli.terminal import console, err_console, escape
from browser_agent.demo import FIRST_COMMAND, SECOND_COMMAND
from browser_agent.errors import UserError, one_line
from browser_agent.llm.choose import make_llm
from browser_agent.llm.prices import shown_cost
from browser_agent.secrets import configured as configured_secrets
from browser_agent.secrets import unconfigured_in

if TYPE_CHECKING:
    from collections.abc import Callable

    from browser_agent.harvest.harvester import HarvestResult
    from browser_agent.llm.types import LLMClient
    from browser_agent.planner.agent import RunResult
    from browser_agent.settings import Settings
    from browser_agent.store.rows import StepRow


MODEL_HELP = "Model at the endpoint; 'offline' for the built-in planner (the default without one)."


def _with_spinner(llm: LLMClient, as_json: bool = False) -> LLMClient:
    """``llm`` showing a spinner on stderr while it answers, on a terminal only."""
    from browser_agent.cli.progress import waiting_for_model

    return llm if as_json else waiting_for_model(llm, err_console())


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


STATUS_COLOURS = {"succeeded": "green", "unverified": "yellow"}
TextActionsOption = Annotated[
    bool, typer.Option(help="For models without tool calling: plain-text actions.")
]
ApproveOption = Annotated[
    bool,
    typer.Option(
        "--approve",
        help="Ask on stdin before each action that submits a form, buys, deletes or sends; "
        "a no (with a note for the agent) is not done.",
    ),
]
ReviewOption = Annotated[
    bool,
    typer.Option(
        "--review",
        help="As --approve, for every action that does something (not only weighty "
        "ones); each decision is kept with the run.",
    ),
]


def print_summary(result: RunResult) -> None:
    """The matching skills the run passed over and why, the answer and what the run cost."""
    for passed in result.passed_over:
        console().print(f"[yellow]{escape(passed.said())}[/]", overflow="fold")
    colour = STATUS_COLOURS.get(result.status, "red")
    console().print(f"\n[bold {colour}]{result.status}[/]: {escape(result.answer)}")
    console().print(
        f"[dim]run {result.run_id}: {result.steps} steps, "
        f"{result.llm_calls} LLM calls ({escape(result.model)}), "
        f"{result.prompt_tokens + result.completion_tokens} tokens{cost_note(result.cost_usd)}, "
        f"{result.seconds:.1f} s; "
        f"log {result.log_path}[/]"
    )


def cost_note(cost: float | None) -> str:
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


def run(
    command: Annotated[
        str, typer.Argument(help="What to do, in plain words; - reads it from standard input.")
    ],
    url: Annotated[str | None, typer.Option("--url", help="Page to start from.")] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Stop after this many tool calls.")] = 30,
    headed: Annotated[bool, typer.Option(help="Show the browser window.")] = False,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    text_actions: TextActionsOption = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    allow_domain: AllowDomainOption = None,
    secret: SecretOption = None,
    profile: ProfileOption = None,
    storage_state: StorageStateOption = None,
    approve: ApproveOption = False,
    review: ReviewOption = False,
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
        from browser_agent.sites.policy import checked_start

        settings = checked_settings().with_overrides(
            allowed_domains=allow_domain or None, profile=profile, storage_state=storage_state
        )
        checked_start(command, url, settings, said="--url")
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
    except Exception as exc:  # said in one line (cli.group); --json still prints the run
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
