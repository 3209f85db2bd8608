"""What the memory's own LLM calls cost, so a run's counts include them."""

from __future__ import annotations

from dataclasses import dataclass

from browser_agent.llm.types import LLMReply


@dataclass
class MemoryUsage:
    """LLM calls made by the memory (summaries and memory manager) and their tokens."""

    llm_calls: int = 0
    summary_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, reply: LLMReply, *, summary: bool = False) -> None:
        """Count one call and its reply's token usage."""
        self.llm_calls += 1
        self.summary_calls += summary
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
