"""The planner loop (System 2): the model calls tools until the command is done.

Each model answer is appended to the history, its tool calls run in order, and each
answer of a tool comes back as a tool message. Malformed calls, errors and loops are
described to the model; bounded counters end runs that do not recover.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from playwright.async_api import Browser, Page

from browser_agent.browser.dialogs import command_accepts_dialogs
from browser_agent.browser.session import BrowserSession, browser_session
from browser_agent.browser.tracing import RunTrace
from browser_agent.errors import (
    ActionError,
    BrowserAgentError,
    BrowserError,
    NoBrowser,
    UserError,
    one_line,
)
from browser_agent.harvest.stored import load_skill
from browser_agent.llm.model_window import served_locally
from browser_agent.llm.prices import run_cost
from browser_agent.llm.types import LLMClient, LLMError, LLMReply, ToolCall
from browser_agent.memory.context import ContextMemory
from browser_agent.planner.approval import (
    APPROVED_NOTE,
    CORRECTED,
    Decision,
    Proposal,
    Review,
    rejected,
)
from browser_agent.planner.login_renewal import renewed_at_start
from browser_agent.planner.people import Channel, ask_user, tell_user, use_channel
from browser_agent.planner.prompts import prompt, task_message
from browser_agent.planner.records import RunRecorder
from browser_agent.planner.router import PassedOver, Route, decide
from browser_agent.planner.skill_call import SkillOutcome, call_skill
from browser_agent.planner.skill_tools import skill_tools
from browser_agent.planner.step_help import MAX_HELP_CALLS, choose_element, step_messages
from browser_agent.secrets import configured as configured_secrets
from browser_agent.secrets import masked_command, redact
from browser_agent.settings import Settings
from browser_agent.sites.boundary import Ask, Boundary
from browser_agent.skills.end_state import command_values, end_state, search_terms
from browser_agent.skills.loader import SkillLoadError
from browser_agent.skills.primitive import OBSERVATION_ONLY, PRIMITIVES, get_dom
from browser_agent.skills.runtime import Target
from browser_agent.store.connection import Store
from browser_agent.store.rows import DecisionRow, StepRow
from browser_agent.store.run_store import open_run_store
from browser_agent.store.skill_use import current_skills
from browser_agent.tools import tool_schema

if TYPE_CHECKING:
    from sqlalchemy import Engine

TERMINATE = "##TERMINATE##"
MAX_CONSECUTIVE_FAILURES = 5
LOOP_REPEATS = 3
# What most tasks need, for a small model (the llm_tools setting): fewer tools to tell apart
BASIC_TOOLS = (
    "open_url",
    "get_dom",
    "find_elements",
    "click",
    "enter_text",
    "select_option",
    "scroll",
    "go_back",
    "finish",
)
MAX_REFUSED_FINISHES = 1  # an unverified finish said back; the next one ends the run
NOT_FINISHED = (
    "Not finished: {why} Do the part of the task that is missing, then call finish again."
)
UNSEARCHED = (
    " To search for {term!r}, type it into the site's search box with enter_text and "
    "press_enter true."
)
AFTER_FINISH = "Not executed: it came after a finish in the same answer."
BARE_REPLY = (
    "You answered without calling a tool. When the task is done or cannot be done, call "
    "finish with your answer and success true or false; otherwise call a tool to act."
)


async def finish(
    answer: Annotated[str, "The result for the person: what was found or done, final URL."],
    success: Annotated[bool, "True when the task was done, false when it could not be."],
) -> str:
    """Finish the task with the final answer, saying whether it was done."""
    if not isinstance(answer, str):
        raise ValueError("the answer of finish must be text")
    if not isinstance(success, bool):
        raise ValueError(f"success must be true or false, not {json.dumps(success)}")
    return answer


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


@dataclass
class Outcome:
    """The answer of one tool call, as the model will read it."""

    text: str
    ok: bool
    error: str | None = None


@dataclass
class Tools:
    """The callables the model may use, by name, and their schemas."""

    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)

    @classmethod
    def default(cls, tool_set: str = "all") -> Tools:
        """The primitives, the person's tools and finish; ``basic``: only BASIC_TOOLS."""
        every = {**PRIMITIVES, "ask_user": ask_user, "tell_user": tell_user, "finish": finish}
        if tool_set == "basic":
            return cls({name: every[name] for name in BASIC_TOOLS})
        return cls(every)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool_schema(fn) for fn in self.functions.values()]


async def execute(call: ToolCall, tools: Tools) -> Outcome:
    """Run one tool call; anything wrong with it becomes an answer the model can act on."""
    fn = tools.functions.get(call.name)
    if not call.name:
        return Outcome(
            f"Error: your action could not be read ({call.arguments[:200]!r}). Write one action "
            'block holding a JSON object such as {"name": "get_dom", "arguments": {}}.',
            False,
            "unreadable_action",
        )
    if fn is None:
        known = ", ".join(tools.functions)
        return Outcome(
            f"Error: there is no tool named {call.name!r}. Tools: {known}.", False, "unknown_tool"
        )
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as exc:
        return Outcome(
            f"Error: the arguments of {call.name} are not valid JSON ({exc.msg} at character "
            f"{exc.pos}). Send them again as one JSON object.",
            False,
            "bad_arguments",
        )
    if not isinstance(arguments, dict):
        return Outcome(
            f"Error: the arguments of {call.name} must be a JSON object.", False, "bad_arguments"
        )
    try:
        inspect.signature(fn).bind(**arguments)
    except TypeError as exc:
        return Outcome(f"Error: wrong arguments for {call.name}: {exc}.", False, "bad_arguments")
    try:
        return Outcome(str(await fn(**arguments)), True)
    except ActionError as exc:
        return Outcome(f"Error: {exc}", False, exc.kind)
    except (ValueError, TypeError) as exc:
        return Outcome(f"Error: {exc}", False, "bad_arguments")


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
    memory: ContextMemory | None = None  # None: the memory the settings describe
    approve: Review | None = None  # approval mode: actions wait for a person's decision
    context: list[dict[str, Any]] = field(default_factory=list)  # sent with the last call
    awaiting_reply: int | None = None  # a rejection whose next reply is kept with it

    def __post_init__(self) -> None:
        if self.memory is None:
            self.memory = ContextMemory.from_settings(
                self.settings,
                self.llm,
                self.recorder.store,
                self.recorder.run.id,
                lambda: self.recorder.secrets,
            )
        self.tools.functions.update(self.memory.tools())

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
                messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.text})
        return None

    async def _ask(self, schemas: list[dict[str, Any]]) -> LLMReply:
        assert self.memory is not None  # set in __post_init__
        try:
            context = await self.memory.fit(self.messages, schemas)
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

    def _give_unique_ids(self, reply: LLMReply) -> None:
        """A call whose id the run used already (every text action is call_1) is given
        one of its own: the log pairs each answer with its call by id."""
        for index, call in enumerate(reply.tool_calls):
            if call.id in self.call_ids:
                call.id = f"call_{self.llm_calls}_{index + 1}"
            self.call_ids.add(call.id)

    async def _complete(
        self, context: list[dict[str, Any]], schemas: list[dict[str, Any]]
    ) -> LLMReply:
        """One model call, counted and kept on disk as an iteration record."""
        reply = await self.llm.complete(context, schemas)
        self.llm_calls += 1
        self._give_unique_ids(reply)
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        memory = self.memory.usage if self.memory is not None else None
        self.recorder.count_calls(
            self.llm_calls + (memory.llm_calls if memory else 0),
            self.prompt_tokens + (memory.prompt_tokens if memory else 0),
            self.completion_tokens + (memory.completion_tokens if memory else 0),
        )
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
        """End the run with a finish call ``execute`` accepted: its answer; RunFailed when
        it says the task could not be done, RunUnverified when the page it ends on does not
        show the values the command gave, or a search it did not type (see end_state). The
        first such finish is said back instead (None): the model may still do what is
        missing."""
        answer = answer.replace(TERMINATE, "").strip()
        if json.loads(call.arguments)["success"] is False:
            self._answer_call(call, "Finished.")
            raise RunFailed(answer or "The model gave up.", answer=answer)
        used = used_values(self.messages)
        values = command_values(command, used)
        try:
            end = await end_state(
                active.current_page(),
                values,
                active.secrets,
                search_terms(command, used),
                command=command,
                refused=active.refused,
            )
        except BrowserError as exc:
            self._answer_call(call, "Finished.")
            raise RunUnverified(f"the final page could not be read: {exc}", answer=answer) from exc
        if not end.shown and self.refused_finishes < MAX_REFUSED_FINISHES:
            self.refused_finishes += 1
            said = NOT_FINISHED.format(why=end.said())
            if end.unsearched:  # the way to what is missing, on any site with a search box
                said += UNSEARCHED.format(term=end.unsearched[0])
            self._answer_call(call, said)
            return None
        self._answer_call(call, "Finished.")
        if end.wrong or end.status is not None:
            said = f"The end state is wrong: {end.said()}"
            raise RunFailed(said, answer=f"{answer} {said}".strip())
        if not end.shown:
            raise RunUnverified(end.said(), answer=answer)
        return answer

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
            call, outcome = await self._reviewed(call)
        outcome = outcome or await execute(call, self.tools)
        outcome, looping = self._check_loop(call, outcome)
        self._answer_call(call, outcome.text)
        self._record(active, call, outcome, reply, started)
        if looping:
            raise RunFailed(f"The model kept repeating {call.name} with the same result.")
        self.failures = 0 if outcome.ok else self.failures + 1
        if self.failures >= MAX_CONSECUTIVE_FAILURES:
            raise RunFailed(f"{self.failures} tool calls in a row failed; the last: {outcome.text}")

    async def _reviewed(self, call: ToolCall) -> tuple[ToolCall, Outcome | None]:
        """Put ``call`` to the person when approval mode covers it, and keep their decision:
        the call that runs (a correction replaces it, in the history too) and its outcome
        (None: not run yet)."""
        assert self.approve is not None
        action = await self.approve.covers(call)
        if action is None:
            return call, None
        context = redact(self.context, self.recorder.secrets)
        tools = sorted(name for name in self.tools.functions if name != "finish")
        decision = await self.approve.decide(Proposal(call, action, context, tools))
        corrected = _corrected(call, decision)
        if corrected:
            verdict = "corrected"
        else:  # a correction that changed nothing is an approval
            verdict = "rejected" if decision.verdict == "rejected" else "approved"
        kept = self.recorder.add_decision(
            DecisionRow(
                run_id=self.recorder.run.id,
                step=self.recorder.step_count + 1,
                verdict=verdict,
                action=action,
                tool=call.name,
                arguments=call.arguments,
                corrected_tool=corrected.name if corrected else None,
                corrected_arguments=corrected.arguments if corrected else None,
                note=decision.note,
                context=json.dumps(context, ensure_ascii=False),
                tools=json.dumps(self.tools.schemas(), ensure_ascii=False),
            )
        )
        if decision.verdict == "rejected":
            self.awaiting_reply = kept
            return call, Outcome(rejected(action, decision.note), False, "rejected")
        ran = corrected or call
        if corrected:
            self._replace_call(corrected)
        outcome = await execute(ran, self.tools)
        note = decision.note.strip()
        if corrected:
            outcome.text += CORRECTED.format(tool=call.name, note=note or "(none)")
        elif note:
            outcome.text += APPROVED_NOTE.format(note=note)
        return ran, outcome

    def _replace_call(self, corrected: ToolCall) -> None:
        """The history shows the corrected call where the model's proposal was."""
        for message in reversed(self.messages):
            calls = message.get("tool_calls") or []
            for index, item in enumerate(calls):
                if item.get("id") == corrected.id:
                    calls[index] = corrected.to_dict()
                    return

    def _record(
        self,
        active: BrowserSession,
        call: ToolCall,
        outcome: Outcome,
        reply: LLMReply | None,
        started: float,
    ) -> None:
        """Store the step, rewrite the log and show progress."""
        step = StepRow(
            run_id=self.recorder.run.id,
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
            url_after=_url(active),
        )
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
            f"Not executed: the page changed after an earlier action (now {_url(active)}). "
            "Look at the page again (get_dom) before acting; earlier mmids may be stale.",
        )

    def _answer_call(self, call: ToolCall, text: str) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


class RunFailed(BrowserAgentError):
    """The run ended without doing the task; the message says why."""

    def __init__(self, reason: str, answer: str | None = None) -> None:
        super().__init__(reason)
        self.answer = answer


class RunUnverified(BrowserAgentError):
    """The run ended, but its final page does not show the command done; the message says
    what it does not show."""

    def __init__(self, reason: str, answer: str) -> None:
        super().__init__(reason)
        self.answer = answer


def used_values(messages: list[dict[str, Any]]) -> list[str]:
    """The texts the run typed and the options it chose (from its tool calls, a list of
    fields to fill too)."""
    found: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            found.extend(value[k] for k in ("text", "option") if isinstance(value.get(k), str))
            for item in value.values():
                if isinstance(item, list | dict):
                    collect(item)

    for message in messages:
        for call in message.get("tool_calls") or []:
            try:
                collect(json.loads(call["function"]["arguments"] or "{}"))
            except (KeyError, TypeError, json.JSONDecodeError):
                continue
    return found


def _corrected(call: ToolCall, decision: Decision) -> ToolCall | None:
    """The call a correction runs instead of ``call`` (with its id); None when the decision
    corrects nothing, or names the same call."""
    if decision.verdict != "corrected" or decision.call is None:
        return None
    changed = ToolCall(call.id, decision.call.name, decision.call.arguments)
    return None if (changed.name, _parsed(changed)) == (call.name, _parsed(call)) else changed


def _parsed(call: ToolCall) -> object:
    """A call's arguments as their JSON value (as written when they are not JSON)."""
    try:
        return json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return call.arguments


def readable(text: str) -> str:
    """``text`` as it can be stored: bytes that were not UTF-8 (which Python keeps from the
    command line as lone surrogates) become U+FFFD."""
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        data = text.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")


def _url(active: BrowserSession) -> str | None:
    try:
        return active.current_page().url
    except BrowserError:
        return None


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
    tools = Tools.default(settings.llm_tools)
    routed = None
    passed_over: list[PassedOver] = []
    if settings.use_skills:
        routing = decide(command, current_skills(store), start_url, settings.workspace)
        tools.functions.update(skill_tools(store, routing.tools, settings.workspace))
        routed, passed_over = routing.route, routing.passed_over
    agent = Agent(llm, settings, recorder, tools, max_steps, on_step, approve=approve)
    use_channel(channel or Channel(ask=None, tell=lambda _text: None))
    started = time.perf_counter()
    status, answer, error, final_url = "failed", "", None, None
    trace: Path | None = None
    try:
        if inspect.isawaitable(browser):
            browser = await browser
        boundary = Boundary.of(start_url, [command], ask=leave)
        async with browser_session(
            settings, browser, save_profile=True, boundary=boundary
        ) as active:
            active.use_secrets(known)
            active.secrets.update(recorder.secrets)
            recorder.secrets = active.secrets  # passwords typed are masked from now on
            recorder.named = active.secret_values  # in addresses, by their placeholders
            active.accept_dialogs |= command_accepts_dialogs(command)
            # on-failure: a routed skill's replay is not traced (its log step says what
            # failed); the trace starts where the model takes over
            tracing = RunTrace(active.context, settings.trace)
            if settings.trace == "always":
                await tracing.start()
            try:
                if routed is None and settings.use_skills:  # an expired login is renewed first
                    await renewed_at_start(store, start_url)
                answer = await agent.run(active, command, start_url, routed, tracing.start)
                status = "succeeded"
            except RunUnverified as exc:
                status, error = "unverified", f"The end state is unverified: {exc}"
                answer = f"{exc.answer} {error}".strip()
            except RunFailed as exc:
                answer, error = exc.answer or f"Could not finish: {exc}", str(exc)
            finally:  # also when interrupted: a trace shows where it was
                trace = await tracing.keep(
                    status != "succeeded",
                    recorder.logs_dir / f"{recorder.run.id}.trace.zip",
                    active.secrets,
                )
            final_url = _url(active)
            if read_page is not None and final_url is not None:
                await read_page(active.page)
    except NoBrowser as exc:  # a setup problem: the run is stored as failed, and the caller told
        error = answer = str(exc)
        raise
    except BrowserError as exc:
        error = str(exc)
        answer = f"Could not finish: {exc}"
    except (asyncio.CancelledError, KeyboardInterrupt) as exc:  # Ctrl-C, or SIGTERM (see cli)
        status, error = "interrupted", str(exc) or "Interrupted by the user."
        raise
    except Exception as exc:  # a page that kept moving, a browser gone: said in one line
        status, error = "failed", one_line(exc)
        answer = f"Could not finish: {error}"
        if isinstance(exc, UserError):  # the person's mistake: exit code 2 (see cli)
            raise
    finally:
        prompt_tokens = agent.prompt_tokens + agent.memory.usage.prompt_tokens
        completion_tokens = agent.completion_tokens + agent.memory.usage.completion_tokens
        try:
            recorder.finish(
                agent.messages,
                status,
                answer=answer,
                error=error,
                final_url=final_url,
                llm_calls=agent.llm_calls + agent.memory.usage.llm_calls,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost_usd=run_cost(
                    llm.name,
                    prompt_tokens,
                    completion_tokens,
                    settings.prices,
                    local=served_locally(llm),
                ),
            )
        finally:
            store.close()  # a connection of the run's own (an engine's pool stays open)
    return RunResult(
        run_id=recorder.run.id,
        status=status,
        answer=recorder.without_secrets(recorder.run.answer or ""),
        steps=recorder.step_count,
        llm_calls=agent.llm_calls + agent.memory.usage.llm_calls,
        prompt_tokens=agent.prompt_tokens + agent.memory.usage.prompt_tokens,
        completion_tokens=agent.completion_tokens + agent.memory.usage.completion_tokens,
        seconds=round(time.perf_counter() - started, 2),
        log_path=str(recorder.log_path),
        final_url=recorder.without_secrets(final_url),
        trace_path=str(trace) if trace else None,
        cost_usd=recorder.run.cost_usd,
        model=llm.name,
        passed_over=passed_over,
    )
