"""A model client made on its first call: a command routed to a skill calls no model, so
it never loads a client's code (the offline planner's rules, the openai package)."""

from __future__ import annotations

from collections.abc import Callable

from browser_agent.llm.model_window import ModelWindow, served_locally, window_of
from browser_agent.llm.types import LLMClient, LLMReply


class LazyClient:
    """Stands for the client ``make`` returns, named ``name`` from the start (runs record the
    model's name before any call), and makes it when it is first asked to answer."""

    def __init__(self, name: str, make: Callable[[], LLMClient]) -> None:
        self.name = name
        self._make = make
        self._client: LLMClient | None = None

    @property
    def made(self) -> bool:
        """True once the client was made (a model was asked something)."""
        return self._client is not None

    def client(self) -> LLMClient:
        """The client, made now if it was not yet."""
        if self._client is None:
            self._client = self._make()
        return self._client

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        """Let the client answer, making it first if needed."""
        return await self.client().complete(messages, tools)

    async def model_window(self) -> ModelWindow:
        """The client's model window (asked just before its first call, so made then)."""
        return await window_of(self.client())

    @property
    def local(self) -> bool:
        """True once made, when the model is served on this machine."""
        return self._client is not None and served_locally(self._client)
