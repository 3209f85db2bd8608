"""Runs started from the console: each runs as a task of the server process, and what it
does (steps, screenshots, questions, the end) becomes events that run pages follow."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from secrets import token_hex
from typing import Any

from browser_agent.console.browse import said_of
from browser_agent.llm.prices import run_cost, shown_cost
from browser_agent.llm.types import LLMClient, ToolCall
from browser_agent.planner.approval import Decision, Proposal
from browser_agent.planner.people import Channel
from browser_agent.settings import Settings
from browser_agent.store.rows import StepRow

logger = logging.getLogger("browser_agent.console")

SHOWN_OF_A_MESSAGE = 2_000  # characters of each context message on the run page
TARGET_KEYS = ("url", "selector", "text_selector", "content_type", "option", "keys", "question")


def step_target(arguments: str) -> str:
    """The most telling argument of a step (a URL, a selector, a question)."""
    try:
        parsed = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return arguments[:80]
    if not isinstance(parsed, dict):
        return ""
    for key in TARGET_KEYS:
        if key in parsed:
            return str(parsed[key])[:200]
    return ""


def shots_root(workspace: Path) -> Path:
    """Where the console keeps the screenshots of the runs it started, by run id."""
    return workspace / "console" / "shots"


def shot_url(run_id: str, index: int) -> str:
    return f"/runs/{run_id}/shots/{index}.jpg"


def trace_path(logs_dir: Path, run_id: str) -> Path:
    """Where a run's Playwright trace is kept (see the ``trace`` setting)."""
    return logs_dir / f"{run_id}.trace.zip"


@dataclass
class LiveRun:
    """One run started from the console: its task, its events so far, its open question.
    A recording (``recording``) is followed the same way; Stop ends it by ``on_stop``, so
    that it is saved, instead of cancelling it."""

    key: str
    command: str
    start_url: str | None
    shots_root: Path  # screenshots go to shots_root/RUN_ID/INDEX.jpg
    events: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    run_id: str | None = None
    status: str = "running"
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: str = ""  # what its tokens cost so far, as shown ("" when its model has no price)
    question: asyncio.Future[str] | None = None
    pending: asyncio.Future[Decision] | None = None  # an action waiting for the person
    proposal: Proposal | None = None  # the action waiting, when it may be corrected
    shots: set[asyncio.Task[None]] = field(default_factory=set)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    recording: bool = False
    price: Callable[[], float | None] = lambda: None  # the cost of its tokens so far
    on_stop: Callable[[], None] | None = None

    def publish(self, kind: str, **data: Any) -> None:
        """Add an event and wake the pages following this run."""
        self.events.append({"id": len(self.events), "kind": kind, **data})
        self.changed.set()
        self.changed = asyncio.Event()

    async def follow(self, start: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Every event from ``start`` on, waiting for new ones until the run has ended."""
        index = start
        while True:
            changed = self.changed
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.status != "running":
                return
            await changed.wait()

    async def ask(self, question: str, timeout_s: float) -> str:
        """Show ``question`` on the run page and wait for the person's answer ("" when none
        came in time)."""
        self.question = asyncio.get_running_loop().create_future()
        self.publish("question", text=question)
        try:
            return await asyncio.wait_for(self.question, timeout_s)
        except TimeoutError:
            self.publish("answered", text="", timed_out=True)
            return ""
        finally:
            self.question = None

    def answer(self, text: str) -> bool:
        """Give the open question its answer; False when no question is waiting."""
        if self.question is None or self.question.done():
            return False
        self.question.set_result(text)
        self.publish("answered", text=text, timed_out=False)
        return True

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def preview(self, context: list[dict[str, Any]]) -> None:
        """Show the context a model call is about to get (masked), as it will be sent."""
        shown = [said_of(message) for message in context]
        self.publish(
            "context",
            messages=[{"who": m.who, "text": m.text[:SHOWN_OF_A_MESSAGE]} for m in shown],
        )

    async def decide(
        self, action: str, timeout_s: float, proposal: Proposal | None = None
    ) -> Decision:
        """Show ``action`` for the person's decision and wait (an action nobody decides on
        in time is rejected). A ``proposal`` may also be corrected: its call is shown, and
        the tools it may become."""
        self.pending = asyncio.get_running_loop().create_future()
        self.proposal = proposal
        shown = {}
        if proposal is not None:
            shown = {
                "tool": proposal.call.name,
                "arguments": _pretty(proposal.call.arguments),
                "tools": proposal.tools,
            }
        self.publish("approval", action=action, **shown)
        try:
            return await asyncio.wait_for(self.pending, timeout_s)
        except TimeoutError:
            self.publish("decided", verdict="rejected", note="")
            return Decision("rejected", "Nobody approved it in time.")
        finally:
            self.pending = None
            self.proposal = None

    def judge(self, verdict: str, note: str, tool: str = "", arguments: str = "") -> str | None:
        """Approve, reject or correct the action waiting; why not, when it cannot be (no
        action waits, a correction that names no tool it may use or no JSON object)."""
        if self.pending is None or self.pending.done():
            return "No action is waiting for a decision."
        if verdict == "correct":
            problem, call = self._correction(tool, arguments)
            if call is None:
                self.publish("refused", text=problem)
                return problem
            decision = Decision("corrected", note, call)
        elif verdict == "approve":
            decision = Decision("approved", note)
        else:
            decision = Decision("rejected", note)
        self.pending.set_result(decision)
        shown = {}
        if decision.call is not None:
            shown = {"tool": decision.call.name, "arguments": decision.call.arguments}
        self.publish("decided", verdict=decision.verdict, note=note, **shown)
        return None

    def _correction(self, tool: str, arguments: str) -> tuple[str, ToolCall | None]:
        """The corrected call the person wrote, or why it cannot run."""
        proposal = self.proposal
        if proposal is None:
            return "Only an action the agent proposed can be corrected.", None
        if tool not in proposal.tools:
            return f"Not corrected: {tool[:60]!r} is not one of the agent's tools.", None
        try:
            parsed = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return f"Not corrected: the arguments are not JSON ({exc.msg}).", None
        if not isinstance(parsed, dict):
            return "Not corrected: the arguments must be a JSON object.", None
        return "", ToolCall(proposal.call.id, tool, json.dumps(parsed, ensure_ascii=False))

    def stop(self) -> bool:
        """Cancel the run (it is stored as interrupted), or end the recording (it is saved);
        False when it already ended."""
        if self.task is None or self.task.done():
            return False
        if self.on_stop is not None:
            self.on_stop()
            return True
        if self.question is not None and not self.question.done():
            self.question.cancel()  # frees the thread waiting in ask_user
        if self.pending is not None and not self.pending.done():
            self.pending.cancel()
        self.task.cancel()
        return True


def _pretty(arguments: str) -> str:
    """A call's arguments indented for a person to read and edit (as sent when not JSON)."""
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except json.JSONDecodeError:
        return arguments


def _stored(live: LiveRun, run_id: str) -> None:
    """The run is in the store: its page can link it from the start."""
    live.run_id = run_id
    live.publish("stored", run_id=run_id)


class RunBoard:
    """The console's live runs, by key, and how to start one."""

    def __init__(self, settings: Settings, make_llm: Callable[[], LLMClient]) -> None:
        self.settings = settings
        self.make_llm = make_llm
        self.runs: dict[str, LiveRun] = {}

    def start(
        self,
        command: str,
        start_url: str | None,
        approve: bool = False,
        every: bool = False,
        secrets: dict[str, str] | None = None,
    ) -> LiveRun:
        """Start ``command`` as a task of this process; its LiveRun follows it. With
        ``approve``, actions that submit, buy, delete or send wait for the person (with
        ``every``, every action that does something). ``secrets`` (by name) are for this
        run alone, over the server's own: kept in its task's memory, never shown."""
        from browser_agent.secrets import configured, masked_command

        known = {**configured(), **(secrets or {})}
        key = token_hex(8)
        shown, _given = masked_command(command, known)  # the page never shows a value
        live = LiveRun(key, shown, start_url, shots_root(self.settings.workspace))
        self.runs[key] = live
        task = self._carry_out(live, command, known, approve or every, every)
        live.task = asyncio.create_task(task, name=f"console-run-{key}")
        return live

    def get(self, key: str) -> LiveRun | None:
        return self.runs.get(key)

    async def stop_all(self) -> None:
        """Stop every run still going and wait for each to be stored as interrupted (the
        server is shutting down: its browsers are about to go)."""
        tasks = [live.task for live in self.runs.values() if live.stop() and live.task]
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _carry_out(
        self, live: LiveRun, command: str, secrets: dict[str, str], approve: bool, every: bool
    ) -> None:
        """Run the command through the planner, publishing its steps and its end."""
        from browser_agent.llm.model_window import served_locally
        from browser_agent.planner.agent import run_command  # the planner: not for --help
        from browser_agent.planner.approval import Review

        loop = asyncio.get_running_loop()
        timeout_s = self.settings.ask_timeout_s

        def ask(question: str) -> str:  # called in a worker thread by ask_user
            future = asyncio.run_coroutine_threadsafe(live.ask(question, timeout_s), loop)
            return future.result()

        async def decide(proposal: Proposal) -> Decision:
            return await live.decide(proposal.action, timeout_s, proposal)

        async def leave(action: str) -> str | None:
            return (await live.decide(action, timeout_s)).refusal()

        llm = self.make_llm()
        live.price = lambda: run_cost(
            llm.name,
            live.prompt_tokens,
            live.completion_tokens,
            self.settings.prices,
            local=served_locally(llm),
        )
        channel = Channel(ask=ask, tell=lambda text: loop.call_soon_threadsafe(_tell, live, text))
        live.publish("started", command=live.command, start_url=live.start_url)
        try:
            result = await run_command(
                command,
                llm,
                self.settings,
                start_url=live.start_url,
                channel=channel,
                on_step=lambda step: self._on_step(live, step),
                on_start=lambda run_id: _stored(live, run_id),
                secrets=secrets,
                approve=Review(decide, every, live.preview) if approve else None,
                leave=leave,
            )
        except asyncio.CancelledError:
            self._end(live, "interrupted", "Stopped from the console.")
            raise
        except Exception as exc:  # a setup problem (no browser, a store error): said on the page
            logger.warning("console run %s ended with an error: %s", live.key, exc)
            self._end(live, "failed", str(exc))
            return
        live.run_id = result.run_id
        live.llm_calls = result.llm_calls
        live.prompt_tokens, live.completion_tokens = result.prompt_tokens, result.completion_tokens
        live.cost = shown_cost(result.cost_usd)
        self._end(live, result.status, result.answer)

    def _end(self, live: LiveRun, status: str, answer: str) -> None:
        """Publish the run's end, with its trace when one was kept; screenshots still being
        taken are dropped."""
        for shot in live.shots:
            shot.cancel()
        live.status = status
        traced = live.run_id and trace_path(self.settings.logs_dir, live.run_id).is_file()
        live.publish(
            "end",
            status=status,
            answer=answer,
            run_id=live.run_id,
            llm_calls=live.llm_calls,
            tokens=live.tokens,
            cost=live.cost,
            trace=f"/runs/{live.run_id}/trace.zip" if traced else None,
        )

    def _on_step(self, live: LiveRun, step: StepRow) -> None:
        """Publish a step as it is stored, then a screenshot of the page after it."""
        live.run_id = step.run_id
        live.llm_calls += step.llm_calls
        live.prompt_tokens += step.prompt_tokens
        live.completion_tokens += step.completion_tokens
        live.cost = shown_cost(live.price())
        live.publish(
            "step",
            index=step.index,
            tool=step.tool,
            target=step_target(step.arguments),
            ok=step.ok,
            response=step.response[:2000],
            run_id=step.run_id,
            llm_calls=live.llm_calls,
            tokens=live.tokens,
            cost=live.cost,
        )
        shot = asyncio.ensure_future(self._screenshot(live, step.index))
        live.shots.add(shot)
        shot.add_done_callback(live.shots.discard)

    async def _screenshot(self, live: LiveRun, index: int) -> None:
        """A JPEG of the run's current page, saved under the workspace; the page shows it."""
        from browser_agent.browser.session import session  # the run task's own session

        if live.run_id is None:
            return
        folder = live.shots_root / live.run_id
        try:
            page = session().current_page()
            folder.mkdir(parents=True, exist_ok=True)
            await page.screenshot(
                path=folder / f"{index}.jpg", type="jpeg", quality=60, timeout=5_000
            )
        except Exception as exc:  # a closed or crashed page: the step keeps no picture
            logger.debug("no screenshot after step %s of %s: %s", index, live.key, exc)
            return
        live.publish("screenshot", index=index, url=shot_url(live.run_id, index))


def _tell(live: LiveRun, text: str) -> None:
    live.publish("told", text=text)
