"""Memory across turns and runs: a chat context of fixed size, a short-term memory list and
long-term memory, all kept in the store.

When the chat context overflows, its oldest share (the chat compression ratio) goes to a
manager LLM call that extracts key points through ``append_to_short_term_memory``; when
the short-term list overflows, its oldest share (the short-term compression ratio) is
consolidated into long-term memory through ``append_to_long_term_memory``. The planner's
``recall(hint)`` tool asks the manager, which answers from memory instead of pasting
entries back.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated

from sqlalchemy import Engine

from browser_agent.llm.types import LLMClient, LLMReply
from browser_agent.memory.messages import clip_text, text_tokens
from browser_agent.memory.prompts import Prompts
from browser_agent.memory.tokens import TokenCounter
from browser_agent.memory.usage import MemoryUsage
from browser_agent.secrets import redact
from browser_agent.settings import Settings
from browser_agent.store.memory_models import MemoryEntry, add_entries, entries
from browser_agent.tools import tool_schema

ENTRY_SHARE = 8  # one chat-context line takes at most 1/8 of the chat context

Memories = list[Annotated[str, "One key point, a sentence that stands alone."]]


def append_to_short_term_memory(memories: Memories) -> None:
    """Keep key points in short-term memory."""


def append_to_long_term_memory(memories: Memories) -> None:
    """Keep consolidated facts in long-term memory."""


SHORT_TERM_TOOL = append_to_short_term_memory.__name__
LONG_TERM_TOOL = append_to_long_term_memory.__name__
TOOL_FUNCTIONS = {
    SHORT_TERM_TOOL: append_to_short_term_memory,
    LONG_TERM_TOOL: append_to_long_term_memory,
}


@dataclass(frozen=True)
class ManagerLimits:
    """Sizes and compression ratios of the memory across runs."""

    chat_tokens: int = 4_000
    chat_ratio: float = 0.5
    short_size: int = 30
    short_ratio: float = 0.5
    recall_tokens: int = 4_000

    @classmethod
    def from_settings(cls, settings: Settings) -> ManagerLimits:
        return cls(
            chat_tokens=settings.memory_chat_context_tokens,
            chat_ratio=settings.memory_chat_compression_ratio,
            short_size=settings.memory_short_term_size,
            short_ratio=settings.memory_short_term_compression_ratio,
            recall_tokens=settings.memory_recall_tokens,
        )


@dataclass
class MemoryManager:
    """Keeps the chat context, short-term and long-term memory; answers recall questions."""

    engine: Engine
    llm: LLMClient
    counter: TokenCounter
    limits: ManagerLimits = field(default_factory=ManagerLimits)
    prompts: Prompts = field(default_factory=Prompts)
    usage: MemoryUsage = field(default_factory=MemoryUsage)
    run_id: str | None = None
    secrets: Callable[[], set[str]] = set

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        engine: Engine,
        llm: LLMClient,
        counter: TokenCounter,
        prompts: Prompts,
        usage: MemoryUsage,
        run_id: str | None = None,
        secrets: Callable[[], set[str]] = set,
    ) -> MemoryManager:
        limits = ManagerLimits.from_settings(settings)
        return cls(engine, llm, counter, limits, prompts, usage, run_id, secrets)

    async def remember(self, lines: list[str]) -> None:
        """Add lines to the chat context; its overflow becomes short-term key points, and
        short-term overflow is consolidated into long-term memory."""
        cap = max(1, self.limits.chat_tokens // ENTRY_SHARE)
        self._add("chat", [clip_text(line, cap, self.counter) for line in lines if line.strip()])
        while _tokens(chat := entries(self.engine, "chat")) > self.limits.chat_tokens:
            oldest = _oldest_share(chat, self.limits.chat_ratio)
            self._move(oldest, "short", await self._condense("extract", SHORT_TERM_TOOL, oldest))
        while len(short := entries(self.engine, "short")) > self.limits.short_size:
            oldest = short[: math.ceil(len(short) * self.limits.short_ratio)]
            self._move(oldest, "long", await self._condense("consolidate", LONG_TERM_TOOL, oldest))

    async def recall(self, hint: str) -> str:
        """The manager's answer to ``hint`` from the memories most related to it."""
        memories = self._relevant(hint)
        if not memories:
            return "Nothing is remembered yet."
        listed = "\n".join(f"- {entry.text}" for entry in memories)
        prompt = self.prompts.render("recall", hint=hint, memories=listed)
        reply = await self.llm.complete([{"role": "user", "content": prompt}], [])
        self.usage.add(reply)
        return (reply.content or "").strip() or "The memory gave no answer."

    def _relevant(self, hint: str) -> list[MemoryEntry]:
        """Long-term, short-term and chat memories, oldest first; when they exceed the recall
        budget, those sharing most words with the hint (newer first on ties)."""
        found = [
            entry for kind in ("long", "short", "chat") for entry in entries(self.engine, kind)
        ]
        if _tokens(found) <= self.limits.recall_tokens:
            return found
        words = _words(hint)
        ranked = sorted(
            range(len(found)), key=lambda i: (len(words & _words(found[i].text)), i), reverse=True
        )
        chosen, used = [], 0
        for i in ranked:
            if used + found[i].tokens <= self.limits.recall_tokens:
                chosen.append(i)
                used += found[i].tokens
        return [found[i] for i in sorted(chosen)]

    async def _condense(self, prompt: str, tool: str, oldest: list[MemoryEntry]) -> list[str]:
        """One manager call turning entries into memories through the ``tool`` function."""
        listed = "\n".join(f"- {entry.text}" for entry in oldest)
        request = [{"role": "user", "content": self.prompts.render(prompt, lines=listed)}]
        reply = await self.llm.complete(request, [tool_schema(TOOL_FUNCTIONS[tool])])
        self.usage.add(reply)
        return _memories(reply, tool)

    def _add(self, kind: str, texts: list[str]) -> None:
        add_entries(self.engine, [self._entry(kind, text) for text in texts])

    def _move(self, old: list[MemoryEntry], kind: str, texts: list[str]) -> None:
        """Replace ``old`` entries by new ones of ``kind``, in one transaction."""
        add_entries(self.engine, [self._entry(kind, text) for text in texts], replacing=old)

    def _entry(self, kind: str, text: str) -> MemoryEntry:
        text = redact(text, self.secrets())
        return MemoryEntry(
            kind=kind, text=text, tokens=text_tokens(text, self.counter), run_id=self.run_id
        )


def recall_tool(manager: MemoryManager) -> Callable[..., Awaitable[str]]:
    """The planner's recall tool, answering from ``manager``."""

    async def recall(
        hint: Annotated[str, "What you want to remember, as a question, e.g. 'price of X'."],
    ) -> str:
        """Ask your memory of earlier steps and earlier runs; it answers the question."""
        return await manager.recall(hint)

    return recall


def _oldest_share(chat: list[MemoryEntry], ratio: float) -> list[MemoryEntry]:
    """The oldest entries holding ``ratio`` of the tokens (at least one entry)."""
    goal = ratio * _tokens(chat)
    taken, used = [], 0
    for entry in chat:
        if taken and used >= goal:
            break
        taken.append(entry)
        used += entry.tokens
    return taken


def _memories(reply: LLMReply, tool: str) -> list[str]:
    """The memories the model passed to ``tool``; its text lines when it called nothing."""
    found: list[str] = []
    for call in reply.tool_calls:
        if call.name != tool:
            continue
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            continue
        memories = arguments.get("memories") if isinstance(arguments, dict) else None
        found += [str(m).strip() for m in memories or [] if str(m).strip()]
    if found or reply.tool_calls:
        return found
    lines = (line.strip().lstrip("-*• ").strip() for line in (reply.content or "").splitlines())
    return [line for line in lines if line]


def _tokens(found: list[MemoryEntry]) -> int:
    return sum(entry.tokens for entry in found)


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"\w+", text.lower()) if len(word) > 2}
