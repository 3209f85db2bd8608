"""A command carried out by the planner: ``run_command`` opens the run's records and
browser, routes the command, drives the planner loop (:mod:`browser_agent.planner.loop`)
and returns a RunResult, recording how the run ended whatever happened."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Browser, Page

from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.browser.tracing import RunTrace
from browser_agent.errors import BrowserError, NoBrowser, UserError, one_line
from browser_agent.llm.model_window import served_locally
from browser_agent.llm.prices import run_cost
from browser_agent.llm.types import LLMClient
from browser_agent.planner.approval import Review
from browser_agent.planner.finishing import RunFailed, RunUnverified
from browser_agent.planner.login_renewal import renewed_at_start
from browser_agent.planner.loop import Agent, current_url
from browser_agent.planner.people import Channel, use_channel
from browser_agent.planner.records import RunRecorder
from browser_agent.planner.router import PassedOver, Route, decide
from browser_agent.planner.skill_tools import skill_tools
from browser_agent.planner.tool_calls import Tools
from browser_agent.secrets import configured as configured_secrets
from browser_agent.secrets import masked_command
from browser_agent.settings import Settings
from browser_agent.sites.boundary import Ask, Boundary
from browser_agent.store.connection import Store
from browser_agent.store.rows import StepRow
from browser_agent.store.run_store import open_run_store
from browser_agent.store.skill_use import current_skills
from browser_agent.words.confirms import command_accepts_dialogs

if TYPE_CHECKING:
    from sqlalchemy import Engine


@dataclass
class RunResult:
    """How a run ended and what it cost."""

    run_id: str
    status: str
    answer: str
    steps: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    log_path: str
    final_url: str | None = None
    cost_usd: float | None = None  # None: the model has no known price
    model: str = ""  # the model's name (``offline`` for the built-in planner)
    trace_path: str | None = None  # the Playwright trace kept (see the trace setting)
    # skills that match the command but were not run (refused, stale...), and why
    passed_over: list[PassedOver] = field(default_factory=list)


def readable(text: str) -> str:
    """``text`` as it can be stored: bytes that were not UTF-8 (which Python keeps from the
    command line as lone surrogates) become U+FFFD."""
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        data = text.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")


async def run_command(
    command: str,
    llm: LLMClient,
    settings: Settings,
    *,
    start_url: str | None = None,
    max_steps: int = 30,
    channel: Channel | None = None,
    browser: Browser | Awaitable[Browser] | None = None,
    engine: Engine | None = None,
    on_step: Callable[[StepRow], None] | None = None,
    on_start: Callable[[str], None] | None = None,
    secrets: dict[str, str] | None = None,
    approve: Review | None = None,
    leave: Ask | None = None,
    read_page: Callable[[Page], Awaitable[None]] | None = None,
) -> RunResult:
    """Carry out ``command`` with the planner and record everything; never raises for a
    failed task (the result says so), but re-raises Ctrl-C, and NoBrowser (a setup
    problem, not the task's), after recording them.

    ``secrets`` (by name; the configured ones when None) and the secret values the command
    gives reach no one: the command keeps their ``{NAME}`` placeholders, typing fills them.
    ``approve`` (approval mode) puts actions to a person first, who may approve, reject
    or correct them; each decision is kept with the run.
    With no allow-list the run stays on its start site and the sites the command names;
    ``leave`` asks the person about another (None: nobody is there, it is refused).
    ``on_start`` is told the run's id as soon as its row is in the store; ``read_page`` is
    given the final page before the browser closes (a watch reads its values there).
    ``browser`` may still be launching: it is awaited once the store is open and the
    command routed, and what its launch met is recorded (None: the run launches its own)."""
    if not command.strip():
        raise ValueError("The command is empty: say what the agent should do.")
    command = readable(command)
    start_url = readable(start_url) if start_url else start_url
    known = configured_secrets() if secrets is None else dict(secrets)
    command, given = masked_command(command, known)
    known.update(given)
    store = Store.of(engine) if engine is not None else open_run_store(settings)
    recorder = RunRecorder.start(
        store, settings.logs_dir, command, start_url, llm.name, settings.logs_in_store
    )
    recorder.secrets.update(known.values())
    if on_start is not None:
        on_start(recorder.run.id)
    tools, routed, passed_over = _routing(command, store, start_url, settings)
    agent = Agent(llm, settings, recorder, tools, max_steps, on_step, approve=approve)
    use_channel(channel or Channel(ask=None, tell=lambda _text: None))
    started = time.perf_counter()
    ending = _Ending()
    try:
        if inspect.isawaitable(browser):
            browser = await browser
        boundary = Boundary.of(start_url, [command], ask=leave)
        async with browser_session(
            settings, browser, save_profile=True, boundary=boundary
        ) as active:
            await _drive(active, agent, store, known, command, start_url, routed, ending)
            if read_page is not None and ending.final_url is not None:
                await read_page(active.page)
    except NoBrowser as exc:  # a setup problem: the run is stored as failed, and the caller told
        ending.error = ending.answer = str(exc)
        raise
    except BrowserError as exc:
        ending.error, ending.answer = str(exc), f"Could not finish: {exc}"
    except (asyncio.CancelledError, KeyboardInterrupt) as exc:  # Ctrl-C, or SIGTERM (see cli)
        ending.status, ending.error = "interrupted", str(exc) or "Interrupted by the user."
        raise
    except Exception as exc:  # a page that kept moving, a browser gone: said in one line
        ending.status, ending.error = "failed", one_line(exc)
        ending.answer = f"Could not finish: {ending.error}"
        if isinstance(exc, UserError):  # the person's mistake: exit code 2 (see cli)
            raise
    finally:
        try:
            _record_end(recorder, agent, llm, settings, ending)
        finally:
            store.close()  # a connection of the run's own (an engine's pool stays open)
    return _result(recorder, agent, llm, ending, time.perf_counter() - started, passed_over)


@dataclass
class _Ending:
    """How a run is ending, filled in as it goes: what its records keep."""

    status: str = "failed"
    answer: str = ""
    error: str | None = None
    final_url: str | None = None
    trace: Path | None = None


async def _drive(
    active: BrowserSession,
    agent: Agent,
    store: Store,
    known: dict[str, str],
    command: str,
    start_url: str | None,
    routed: Route | None,
    ending: _Ending,
) -> None:
    """The run in its browser: the secrets given, an expired login renewed, the planner's
    loop driven (a routed skill first), the trace kept when asked; ``ending`` says how."""
    recorder, settings = agent.recorder, agent.settings
    active.use_secrets(known)
    active.secrets.update(recorder.secrets)
    recorder.secrets = active.secrets  # passwords typed are masked from now on
    recorder.named = active.secret_values  # in addresses, by their placeholders
    active.accept_dialogs |= command_accepts_dialogs(command)
    # on-failure: a routed skill's replay is not traced (its log step says what failed);
    # the trace starts where the model takes over
    tracing = RunTrace(active.context, settings.trace)
    if settings.trace == "always":
        await tracing.start()
    try:
        if routed is None and settings.use_skills:  # an expired login is renewed first
            await renewed_at_start(store, start_url)
        ending.answer = await agent.run(active, command, start_url, routed, tracing.start)
        ending.status = "succeeded"
    except RunUnverified as exc:
        ending.status, ending.error = "unverified", f"The end state is unverified: {exc}"
        ending.answer = f"{exc.answer} {ending.error}".strip()
    except RunFailed as exc:
        ending.answer, ending.error = exc.answer or f"Could not finish: {exc}", str(exc)
    finally:  # also when interrupted: a trace shows where it was
        ending.trace = await tracing.keep(
            ending.status != "succeeded",
            recorder.logs_dir / f"{recorder.run.id}.trace.zip",
            active.secrets,
        )
    ending.final_url = current_url(active)


def _record_end(
    recorder: RunRecorder, agent: Agent, llm: LLMClient, settings: Settings, ending: _Ending
) -> None:
    """Keep how the run ended with what it cost (the memory's own calls counted in)."""
    llm_calls, prompt_tokens, completion_tokens = agent.totals()
    recorder.finish(
        agent.messages,
        ending.status,
        answer=ending.answer,
        error=ending.error,
        final_url=ending.final_url,
        llm_calls=llm_calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=run_cost(
            llm.name, prompt_tokens, completion_tokens, settings.prices, local=served_locally(llm)
        ),
    )


def _routing(
    command: str, store: Store, start_url: str | None, settings: Settings
) -> tuple[Tools, Route | None, list[PassedOver]]:
    """The planner's tools (the skills the command may use among them), the skill the
    command is routed to if any, and the matching skills passed over, with why."""
    tools = Tools.default(settings.llm_tools)
    if not settings.use_skills:
        return tools, None, []
    routing = decide(command, current_skills(store), start_url, settings.workspace)
    tools.functions.update(skill_tools(store, routing.tools, settings.workspace))
    return tools, routing.route, routing.passed_over


def _result(
    recorder: RunRecorder,
    agent: Agent,
    llm: LLMClient,
    ending: _Ending,
    seconds: float,
    passed_over: list[PassedOver],
) -> RunResult:
    """What the caller is told of the run, secrets left out."""
    llm_calls, prompt_tokens, completion_tokens = agent.totals()
    return RunResult(
        run_id=recorder.run.id,
        status=ending.status,
        answer=recorder.without_secrets(recorder.run.answer or ""),
        steps=recorder.step_count,
        llm_calls=llm_calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        seconds=round(seconds, 2),
        log_path=str(recorder.log_path),
        final_url=recorder.without_secrets(ending.final_url),
        trace_path=str(ending.trace) if ending.trace else None,
        cost_usd=recorder.run.cost_usd,
        model=llm.name,
        passed_over=passed_over,
    )
