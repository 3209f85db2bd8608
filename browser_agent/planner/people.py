"""Talking to the person: ask_user and tell_user tools, over stdin/stdout or nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated

NOBODY = (
    "Nobody is available to answer: this run is not interactive. Carry on with your best "
    "judgement, or finish and say what information is missing."
)


@dataclass
class Channel:
    """How this run reaches a person; ``ask`` is None when nobody is there."""

    ask: Callable[[str], str] | None
    tell: Callable[[str], None]


def console_channel(interactive: bool) -> Channel:
    """stdin/stdout, or output only when the run is not interactive."""

    def ask(question: str) -> str:
        return input(f"\nThe agent asks: {question}\n> ")

    return Channel(ask=ask if interactive else None, tell=lambda text: print(f"Agent: {text}"))


_channel: ContextVar[Channel] = ContextVar("browser_agent_channel")


def use_channel(channel: Channel) -> None:
    """Route this task's ask_user/tell_user to ``channel``."""
    _channel.set(channel)


async def ask_user(
    question: Annotated[str, "The question for the person running the task."],
) -> str:
    """Ask the person a question and wait for the answer (only when nothing else will do)."""
    channel = _channel.get(None)
    if channel is None or channel.ask is None:
        return NOBODY
    answer = await asyncio.to_thread(channel.ask, question)
    return f"The person answered: {answer!r}" if answer.strip() else "The person gave no answer."


async def tell_user(
    message: Annotated[str, "What to tell the person, e.g. progress or a warning."],
) -> str:
    """Tell the person something without waiting for an answer."""
    channel = _channel.get(None)
    if channel is not None:
        channel.tell(message)
    return "Told the person."
