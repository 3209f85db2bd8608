"""Fitting the planner's history into the model's context before each call.

The system prompt, the command and the tool schemas are always sent; what is left of
the context limit after them and the answer reserve is the history budget. Recent
messages (the short-term window) get ``short_term_share`` of it (75%), a long-term
summary of everything older the rest (25%). Old page observations are elided first.
When the window still overflows, its oldest units (an assistant message with its tool
answers move together) are evicted down to ``evict_target_share`` of the window and the
LLM summarizes them: from all evicted messages while that prompt fits the model,
otherwise recursively from the previous summary plus the newly evicted messages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from browser_agent.llm.model_window import answer_room, window_of
from browser_agent.llm.types import LLMClient, LLMError
from browser_agent.memory.messages import (
    Message,
    clip_message,
    clip_text,
    command_index,
    elided,
    group,
    is_observation,
    text_tokens,
    tool_names,
    transcript_line,
)
from browser_agent.memory.prompts import Prompts
from browser_agent.memory.tokens import (
    TokenCounter,
    message_tokens,
    messages_tokens,
    token_counter,
    tools_tokens,
)
from browser_agent.memory.usage import MemoryUsage
from browser_agent.settings import Settings

if TYPE_CHECKING:
    from browser_agent.memory.manager import MemoryManager
    from browser_agent.store.connection import Store

MIN_ROOM_TOKENS = 64  # below this a budget is too small to hold anything useful


class ContextOverflow(LLMError):
    """Even what is always kept (system prompt, command, tools, newest step) does not fit."""


@dataclass(frozen=True)
class Budget:
    """The token limits of the planner's context, from the settings."""

    context_limit: int
    answer_reserve: int
    short_share: float = 0.75
    summary_limit: int = 2_000
    evict_target: float = 0.5

    @classmethod
    def from_settings(cls, settings: Settings) -> Budget:
        return cls(
            context_limit=settings.context_limit_tokens,
            answer_reserve=settings.answer_reserve_tokens,
            short_share=settings.short_term_share,
            summary_limit=settings.summary_token_limit,
            evict_target=settings.evict_target_share,
        )


@dataclass
class ContextMemory:
    """The planner's memory within one run: fits the history, keeps the long-term summary."""

    llm: LLMClient
    budget: Budget
    counter: TokenCounter
    prompts: Prompts = field(default_factory=Prompts)
    manager: MemoryManager | None = None
    usage: MemoryUsage = field(default_factory=MemoryUsage)
    summary: str | None = None
    summarized: int = 0  # messages after the command that the summary stands for
    fed: int = 0  # messages already handed to the memory manager
    fitted_to_model: bool = False  # the model's server was asked for its window

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        llm: LLMClient,
        store: Store | None = None,
        run_id: str | None = None,
        secrets: Callable[[], set[str]] = set,
    ) -> ContextMemory:
        """The memory the settings describe; a manager too when enabled and a store is given
        (its module, and the ORM it queries the store with, are loaded only then)."""
        counter = token_counter(llm.name)
        prompts = Prompts(settings.memory_prompts_dir)
        usage = MemoryUsage()
        manager = None
        if settings.memory_manager and store is not None:
            from browser_agent.memory.manager import MemoryManager
            from browser_agent.store.db import orm_engine

            manager = MemoryManager.from_settings(
                settings, orm_engine(store, settings), llm, counter, prompts, usage, run_id, secrets
            )
        return cls(llm, Budget.from_settings(settings), counter, prompts, manager, usage)

    def tools(self) -> dict[str, Callable[..., Awaitable[str]]]:
        """Tools the memory gives the planner: recall, when a memory manager is active."""
        if self.manager is None:
            return {}
        from browser_agent.memory.manager import recall_tool

        return {"recall": recall_tool(self.manager)}

    async def fit(self, messages: list[Message], tools: list[dict]) -> list[Message]:
        """The context to send for ``messages`` and ``tools``, within the budget."""
        if not self.fitted_to_model:
            await self._fit_to_model()
        if self.manager is not None:
            await self._feed(messages)
        start = command_index(messages) + 1
        head, body = messages[:start], messages[start:]
        history = self._history_budget(head, tools)
        short = int(history * self.budget.short_share)
        long = history - short
        if self._tokens(self._elide_old(body[self.summarized :], 0)) > short:
            target = int(short * self.budget.evict_target)
            await self._evict(head, body, target, self._summary_limit(long))
        window = self._fit_window(body[self.summarized :], short)
        return [*head, *self._summary_message(long), *window]

    async def _fit_to_model(self) -> None:
        """Once, before the first call: a window the model's server reports that is smaller
        than the configured limit becomes the limit (the answer reserve kept within a
        quarter of it), and its tokenizer counts the tokens."""
        self.fitted_to_model = True
        window = await window_of(self.llm)
        size = window.context_tokens
        if size is not None and size < self.budget.context_limit:
            reserve = answer_room(size, self.budget.answer_reserve)
            self.budget = replace(self.budget, context_limit=size, answer_reserve=reserve)
        if window.tokenizer is not None:
            self.counter = window.tokenizer

    def _history_budget(self, head: list[Message], tools: list[dict]) -> int:
        """Tokens left for the history once the kept parts and the answer reserve are counted."""
        fixed = self._tokens(head) + tools_tokens(self.counter, tools)
        history = self.budget.context_limit - self.budget.answer_reserve - fixed
        if history < MIN_ROOM_TOKENS:
            raise ContextOverflow(
                f"the context limit of {self.budget.context_limit} tokens leaves no room for "
                f"the history: system prompt, command and tools take {fixed} tokens and "
                f"{self.budget.answer_reserve} are reserved for the answer"
            )
        return history

    def _summary_limit(self, long: int) -> int:
        """Most tokens a summary may have: its setting, capped by the long-term share."""
        overhead = message_tokens(self.counter, self._summary_as_message(""))
        limit = min(self.budget.summary_limit, long - overhead)
        if limit < MIN_ROOM_TOKENS:
            raise ContextOverflow(f"the long-term share ({long} tokens) cannot hold a summary")
        return limit

    def _summary_as_message(self, summary: str) -> Message:
        return {"role": "user", "content": self.prompts.render("summary_message", summary=summary)}

    def _summary_message(self, long: int) -> list[Message]:
        """The summary as the message after the command, within the long-term share."""
        if self.summary is None:
            return []
        return [clip_message(self._summary_as_message(self.summary), long, self.counter)]

    def _tokens(self, messages: list[Message]) -> int:
        return messages_tokens(self.counter, messages)

    def _elide_old(self, window: list[Message], limit: int) -> list[Message]:
        """The window with old page observations (all but the newest) elided, oldest first,
        until it fits ``limit`` (0: elide them all)."""
        fitted = list(window)
        total = self._tokens(fitted)
        old = [i for i, message in enumerate(fitted) if is_observation(message)][:-1]
        for i in old:
            if total <= limit:
                break
            note = elided(fitted[i])
            total += message_tokens(self.counter, note) - message_tokens(self.counter, fitted[i])
            fitted[i] = note
        return fitted

    def _fit_window(self, window: list[Message], limit: int) -> list[Message]:
        """The window within ``limit``: old observations elided, then, when the newest unit
        alone is too big, its largest message cut."""
        fitted = self._elide_old(window, limit)
        over = self._tokens(fitted) - limit
        if over <= 0:
            return fitted
        sizes = [message_tokens(self.counter, message) for message in fitted]
        largest = max(range(len(fitted)), key=sizes.__getitem__)
        fitted[largest] = clip_message(fitted[largest], sizes[largest] - over, self.counter)
        if self._tokens(fitted) > limit:
            raise ContextOverflow(f"the newest step does not fit the short-term window ({limit})")
        return fitted

    async def _evict(
        self, head: list[Message], body: list[Message], target: int, limit: int
    ) -> None:
        """Move the oldest units of the window into the summary until the rest fits ``target``
        (old observations elided); the newest unit always stays."""
        window = body[self.summarized :]
        units = group(window)
        sizes = [self._tokens(unit) for unit in group(self._elide_old(window, 0))]
        total, evicted = sum(sizes), 0
        while total > target and evicted < len(units) - 1:
            total -= sizes[evicted]
            evicted += 1
        if evicted == 0:
            return
        cut = self.summarized + sum(len(unit) for unit in units[:evicted])
        task = str(head[-1].get("content") or "")
        self.summary = await self._summarize(task, body[:cut], body[self.summarized : cut], limit)
        self.summarized = cut

    async def _summarize(
        self, task: str, evicted: list[Message], new: list[Message], limit: int
    ) -> str:
        """Summary of all evicted messages: fresh from them when that prompt and its output
        fit the model, else from the previous summary plus the new messages, chunk by chunk."""
        room = self._room(task, limit)
        names = tool_names(evicted)
        lines = [clip_text(transcript_line(m, names), room // 4, self.counter) for m in evicted]
        fresh = self.prompts.render(
            "summarize", command=task, max_chars=4 * limit, transcript="\n".join(lines)
        )
        if self._prompt_tokens(fresh) + limit <= self.budget.context_limit:
            return await self._ask_summary(fresh, limit)
        summary = self.summary
        new_lines = lines[len(evicted) - len(new) :]
        for chunk in self._chunks(new_lines, room):
            transcript = "\n".join(chunk)
            if summary is None:
                text = self.prompts.render(
                    "summarize", command=task, max_chars=4 * limit, transcript=transcript
                )
            else:
                text = self.prompts.render(
                    "resummarize",
                    command=task,
                    max_chars=4 * limit,
                    previous=summary,
                    transcript=transcript,
                )
            summary = await self._ask_summary(text, limit)
        return summary or ""

    def _room(self, task: str, limit: int) -> int:
        """Tokens a transcript chunk may take in a recursive summary prompt, with a previous
        summary of full size and the summary's output reserved."""
        empty = self.prompts.render(
            "resummarize", command=task, max_chars=4 * limit, previous="", transcript=""
        )
        room = self.budget.context_limit - self._prompt_tokens(empty) - 2 * limit
        if room < MIN_ROOM_TOKENS:
            raise ContextOverflow(
                f"a summary prompt for this task does not fit {self.budget.context_limit} tokens"
            )
        return room

    def _prompt_tokens(self, prompt: str) -> int:
        return message_tokens(self.counter, {"role": "user", "content": prompt})

    def _chunks(self, lines: list[str], room: int) -> list[list[str]]:
        """Consecutive lines packed into chunks of at most ``room`` tokens each."""
        chunks: list[list[str]] = [[]]
        used = 0
        for line in lines:
            size = text_tokens(line, self.counter)  # its quotes pay for the line break
            if chunks[-1] and used + size > room:
                chunks.append([])
                used = 0
            chunks[-1].append(line)
            used += size
        return chunks

    async def _ask_summary(self, prompt: str, limit: int) -> str:
        """One summary call: a plain completion without tools, its answer kept within limit."""
        reply = await self.llm.complete([{"role": "user", "content": prompt}], [])
        self.usage.add(reply, summary=True)
        return clip_text((reply.content or "").strip(), limit, self.counter)

    async def _feed(self, messages: list[Message]) -> None:
        """Hand the messages the manager has not seen yet to its chat context."""
        assert self.manager is not None
        names = tool_names(messages)
        fresh = [m for m in messages[self.fed :] if m.get("role") != "system"]
        self.fed = len(messages)
        await self.manager.remember([transcript_line(m, names) for m in fresh])
