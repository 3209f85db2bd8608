"""The planner loop (System 2): the model calls tools until the command is done.

Each model answer is appended to the history, its tool calls run in order, and each
answer of a tool comes back as a tool message. Malformed calls, errors and loops are
described to the model; bounded counters end runs that do not recover.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.async_api import Page

from browser_agent.browser.session import BrowserSession
from browser_agent.browser.tracing import step_group
from browser_agent.errors import BrowserError
from browser_agent.llm.types import LLMClient, LLMError, LLMReply, ToolCall
from browser_agent.planner.approval import Review
from browser_agent.planner.finishing import (
    MAX_REFUSED_FINISHES,
    TERMINATE,
    RunFailed,
    RunUnverified,
    finished,
)
from browser_agent.planner.prompts import prompt, task_message
from browser_agent.planner.records import RunRecorder
from browser_agent.planner.review import reviewed
from browser_agent.planner.router import Route
from browser_agent.planner.skill_call import SkillOutcome, call_skill
from browser_agent.planner.step_help import MAX_HELP_CALLS, choose_element, step_messages
from browser_agent.planner.tool_calls import Outcome, Tools, answer_message, execute
from browser_agent.secrets import redact
from browser_agent.settings import Settings
from browser_agent.skills.loader import SkillLoadError
from browser_agent.skills.primitive import OBSERVATION_ONLY, SAME_VIEW, get_dom
from browser_agent.skills.runtime import Target
from browser_agent.skills.stored import load_skill
from browser_agent.store.rows import StepRow

if TYPE_CHECKING:
    from browser_agent.memory.context import ContextMemory

MAX_CONSECUTIVE_FAILURES = 5
LOOP_REPEATS = 3
AFTER_FINISH = "Not executed: it came after a finish in the same answer."
BARE_REPLY = (
    "You answered without calling a tool. When the task is done or cannot be done, call "
    "finish with your answer and success true or false; otherwise call a tool to act."
)


@dataclass
class Agent:
    """One run of the planner: the model, its tools, the records, the browser session."""

    llm: LLMClient
    settings: Settings
    recorder: RunRecorder
    tools: Tools
    max_steps: int
    on_step: Callable[[StepRow], None] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0
    recent: list[tuple[str, str, str]] = field(default_factory=list)
    warned_loop: bool = False
    help_calls: int = 0  # model calls spent on single skill steps (see _help_step)
    bare_replies: int = 0  # replies in a row with no tool call (see _bare_reply)
    call_ids: set[str] = field(default_factory=set)  # the ids of the run's calls so far
    refused_finishes: int = 0  # finishes whose end state was unverified (see _finish)
    memory: ContextMemory | None = None  # made when the model is first asked (_memory)
    approve: Review | None = None  # approval mode: actions wait for a person's decision
    context: list[dict[str, Any]] = field(default_factory=list)  # sent with the last call
    awaiting_reply: int | None = None  # a rejection whose next reply is kept with it

    def _memory(self) -> ContextMemory:
        """The run's context memory and its tools, made when the model is first asked: a
        routed run that ends in its skill needs neither (nor the token counter's load)."""
        if self.memory is None:
            from browser_agent.memory.context import ContextMemory  # loads with the model

            self.memory = ContextMemory.from_settings(
                self.settings,
                self.llm,
                self.recorder.store,
                self.recorder.run.id,
                lambda: self.recorder.secrets,
            )
            self.tools.functions.update(self.memory.tools())
        return self.memory

    def totals(self) -> tuple[int, int, int]:
        """Model calls, prompt and completion tokens of the run, the memory's counted in."""
        used = self.memory.usage if self.memory is not None else None
        return (
            self.llm_calls + (used.llm_calls if used else 0),
            self.prompt_tokens + (used.prompt_tokens if used else 0),
            self.completion_tokens + (used.completion_tokens if used else 0),
        )

    async def run(
        self,
        active: BrowserSession,
        command: str,
        start_url: str | None,
        routed: Route | None = None,
        on_planning: Callable[[], Awaitable[None]] | None = None,
    ) -> str:
        """Drive the model until it finishes; returns the final answer or raises RunFailed.

        A routed skill runs first, with no model call; if it fails, the model takes over
        from the page as it is, seeing the skill's failure as the answer to its call.
        ``on_planning`` is awaited once, when the model takes over (or starts).
        """
        self.messages = [
            {"role": "system", "content": prompt("system").strip()},
            {"role": "user", "content": task_message(command, start_url)},
        ]
        if routed is not None:
            answer = await self._follow(active, routed, start_url)
            if answer is not None:
                return answer
        if on_planning is not None:
            await on_planning()
        self._memory()  # its tools are offered with the others
        schemas = self.tools.schemas()
        while True:
            reply = await self._ask(schemas)
            if not reply.tool_calls:
                self._bare_reply(reply)
                continue
            self.bare_replies = 0
            version = active.page_version
            refused = False  # a finish said back: the calls after it are not run
            for index, call in enumerate(reply.tool_calls):
                if refused:
                    self._answer_call(call, AFTER_FINISH)
                    continue
                ending = await execute(call, self.tools) if call.name == "finish" else None
                if ending is not None and ending.ok:
                    answer = await self._finish(active, command, call, ending.text)
                    if answer is not None:
                        return answer
                    refused = True
                    continue
                if active.page_version != version and call.name not in OBSERVATION_ONLY:
                    self._skip(call, active)  # acting blind on a changed page
                    continue
                if self.recorder.step_count >= self.max_steps:
                    raise RunFailed(f"The step limit ({self.max_steps}) was reached.")
                # a finish that cannot be read is described back like any malformed call
                await self._step(active, call, reply if index == 0 else None, ending)

    def _bare_reply(self, reply: LLMReply) -> None:
        """A reply with no tool call is not an answer: said back once, then the run fails."""
        self.bare_replies += 1
        text = " ".join((reply.content or "").replace(TERMINATE, "").split())
        if self.bare_replies > 1:
            said = f" (it said: {text[:200]!r})" if text else " (an empty reply)"
            raise RunFailed(f"The model stopped without calling finish{said}.")
        self.messages.append({"role": "user", "content": BARE_REPLY})

    async def _follow(
        self, active: BrowserSession, routed: Route, start_url: str | None
    ) -> str | None:
        """Run the routed skill as the first step; its answer, or None when it failed or did
        not apply to the command (the step says which, and the model reads why)."""
        arguments = dict(routed.arguments)
        if start_url:
            arguments["start_url"] = start_url
        call = ToolCall("route_1", routed.skill.name, json.dumps(arguments))
        self.messages.append({"role": "assistant", "content": None, "tool_calls": [call.to_dict()]})
        started = time.perf_counter()
        try:
            function = load_skill(routed.skill, self.settings.workspace)
            outcome = await call_skill(
                self.recorder.store, routed.skill, function, arguments, self._help_step
            )
        except SkillLoadError as exc:
            outcome = SkillOutcome(f"The harvested skill could not be loaded: {exc}", False)
        if outcome.ok:
            error = "skill_repaired" if outcome.repairs else None
        elif outcome.unverified is not None:  # its steps ran: not done again by the model
            error = "skill_unverified"
        else:  # the model takes over, told why; a skill that did not apply is not broken
            error = "skill_not_applicable" if outcome.not_applicable else "skill_failed"
        self._answer_call(call, outcome.text)
        self._record(active, call, Outcome(outcome.text, outcome.ok, error), None, started)
        if outcome.unverified is not None and outcome.unverified.wrong:
            said = f"The end state is wrong: {outcome.unverified.said}"
            raise RunFailed(said, answer=f"{outcome.unverified.answer} {said}")
        if outcome.unverified is not None:
            raise RunUnverified(outcome.unverified.said, answer=outcome.unverified.answer)
        return outcome.text if outcome.ok else None

    async def _help_step(self, target: Target, page: Page, problem: str) -> str | None:
        """Ask the model for the element of one skill step that healing could not find, in a
        short conversation of its own (MAX_HELP_CALLS model calls at most in a run); None
        when it names none."""
        tools = Tools({"get_dom": get_dom, "choose_element": choose_element})
        schemas = tools.schemas()
        messages = step_messages(target, page.url, problem)
        while self.help_calls < MAX_HELP_CALLS:
            self.help_calls += 1
            try:
                reply = await self._complete(messages, schemas)
            except LLMError:
                return None
            messages.append(reply.to_message())
            if not reply.tool_calls:
                return None
            for call in reply.tool_calls:
                outcome = await execute(call, tools)
                if call.name == "choose_element" and outcome.ok:
                    return outcome.text
                messages.append(answer_message(call, outcome.text))
        return None

    async def _ask(self, schemas: list[dict[str, Any]]) -> LLMReply:
        try:
            context = await self._memory().fit(self.messages, schemas)
            self.context = context
            if self.approve is not None and self.approve.preview is not None:
                self.approve.preview(redact(context, self.recorder.secrets))
            reply = await self._complete(context, schemas)
        except LLMError as exc:
            raise RunFailed(f"The model call failed: {exc}") from exc
        self.messages.append(reply.to_message())
        if self.awaiting_reply is not None:  # what the model did once it read the note
            self.recorder.follow_decision(self.awaiting_reply, reply.to_message())
            self.awaiting_reply = None
        return reply

    async def _complete(
        self, context: list[dict[str, Any]], schemas: list[dict[str, Any]]
    ) -> LLMReply:
        """One model call, counted and kept on disk as an iteration record."""
        reply = await self.llm.complete(context, schemas)
        self.llm_calls += 1
        give_unique_ids(reply, self.call_ids, self.llm_calls)
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.recorder.count_calls(*self.totals())
        self.recorder.add_iteration(
            {
                "iteration": self.llm_calls,
                "context": context,
                "reasoning": reply.content,
                "actions": [c.to_dict() for c in reply.tool_calls],
                "usage": {
                    "prompt": reply.usage.prompt_tokens,
                    "completion": reply.usage.completion_tokens,
                },
            }
        )
        return reply

    async def _finish(
        self, active: BrowserSession, command: str, call: ToolCall, answer: str
    ) -> str | None:
        """End the run with a finish call ``execute`` accepted (see ``finished``); the first
        finish whose end state is unverified is said back instead (None)."""
        say_back = self.refused_finishes < MAX_REFUSED_FINISHES
        answer_given = await finished(active, command, self.messages, call, answer, say_back)
        if answer_given is None:
            self.refused_finishes += 1
        return answer_given

    async def _step(
        self,
        active: BrowserSession,
        call: ToolCall,
        reply: LLMReply | None,
        outcome: Outcome | None = None,
    ) -> None:
        """Run one call (or take the outcome it already had), answer it and record it."""
        started = time.perf_counter()
        if outcome is None and self.approve is not None and call.name in self.tools.functions:
            review = await reviewed(
                call, self.approve, self.recorder, self.tools, self.context, self.messages
            )
            call, outcome = review.call, review.outcome
            if review.rejection is not None:
                self.awaiting_reply = review.rejection
        if outcome is None:
            await step_group(active.context, f"Step {self.recorder.step_count + 1}: {call.name}")
            outcome = await execute(call, self.tools)
            await step_group(active.context, None)
        repeated = self.recent[-1:] == [(call.name, call.arguments, outcome.text)]
        raw = outcome.text
        outcome, looping = self._check_loop(call, outcome)
        if repeated and call.name in OBSERVATION_ONLY:  # the model has this view already
            said = SAME_VIEW.format(name=call.name)
            outcome = Outcome(outcome.text.replace(raw, said, 1), outcome.ok, outcome.error)
        self._answer_call(call, outcome.text)
        self._record(active, call, outcome, reply, started)
        if looping:
            raise RunFailed(f"The model kept repeating {call.name} with the same result.")
        self.failures = 0 if outcome.ok else self.failures + 1
        if self.failures >= MAX_CONSECUTIVE_FAILURES:
            raise RunFailed(f"{self.failures} tool calls in a row failed; the last: {outcome.text}")

    def _record(
        self,
        active: BrowserSession,
        call: ToolCall,
        outcome: Outcome,
        reply: LLMReply | None,
        started: float,
    ) -> None:
        """Store the step, rewrite the log and show progress."""
        step = step_row(self.recorder.run.id, call, outcome, reply, started)
        step.url_after = current_url(active)
        self.recorder.add_step(step)
        self.recorder.write_log(self.messages)
        if self.on_step:
            self.on_step(step)

    def _check_loop(self, call: ToolCall, outcome: Outcome) -> tuple[Outcome, bool]:
        """Warn a model that repeats itself; the second time, say the run must stop."""
        self.recent = [*self.recent, (call.name, call.arguments, outcome.text)][-LOOP_REPEATS:]
        if len(self.recent) < LOOP_REPEATS or len(set(self.recent)) != 1:
            return outcome, False
        if self.warned_loop:
            return outcome, True
        self.warned_loop = True
        return Outcome(
            f"{outcome.text}\nYou have made this same call {LOOP_REPEATS} times with the same "
            "result: you are looping. Do something else or finish.",
            outcome.ok,
            outcome.error or "loop",
        ), False

    def _skip(self, call: ToolCall, active: BrowserSession) -> None:
        self._answer_call(
            call,
            f"Not executed: the page changed after an earlier action (now {current_url(active)}). "
            "Look at the page again (get_dom) before acting; earlier mmids may be stale.",
        )

    def _answer_call(self, call: ToolCall, text: str) -> None:
        self.messages.append(answer_message(call, text))


def step_row(
    run_id: str, call: ToolCall, outcome: Outcome, reply: LLMReply | None, started: float
) -> StepRow:
    """The stored step of ``call``, begun at ``started`` (perf_counter), with the tokens of
    the model's reply that made it (none for a routed skill's)."""
    return StepRow(
        run_id=run_id,
        index=0,
        tool=call.name,
        arguments=call.arguments,
        response=outcome.text,
        ok=outcome.ok,
        error=outcome.error,
        duration_s=round(time.perf_counter() - started, 3),
        llm_calls=1 if reply else 0,
        prompt_tokens=reply.usage.prompt_tokens if reply else 0,
        completion_tokens=reply.usage.completion_tokens if reply else 0,
    )


def current_url(active: BrowserSession) -> str | None:
    """The address of the session's page; None when the browser cannot say."""
    try:
        return active.current_page().url
    except BrowserError:
        return None


def give_unique_ids(reply: LLMReply, used: set[str], calls: int) -> None:
    """A call whose id the run used already (every text action is call_1) is given one of
    its own (``calls``: the model calls so far): the log pairs each answer with its call
    by id. ``used`` gains every id."""
    for index, call in enumerate(reply.tool_calls):
        if call.id in used:
            call.id = f"call_{calls}_{index + 1}"
        used.add(call.id)
