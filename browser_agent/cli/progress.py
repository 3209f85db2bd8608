"""What moves on a terminal while the agent waits: a spinner with the elapsed time around
each model call, and a counting bar for batches (harvest, validate). Nothing is shown
when the output is not a terminal or is JSON, so piped output stays clean."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich.progress loads only when something is shown or counted
    from rich.console import Console
    from rich.progress import Progress

    from browser_agent.llm.model_window import ModelWindow
    from browser_agent.llm.types import LLMClient, LLMReply


def shows_progress(console: Console, as_json: bool = False) -> bool:
    """True when ``console`` is a terminal and the output is not JSON."""
    return console.is_terminal and not as_json


class WaitingForModel:
    """An LLM client that shows a spinner and the seconds waited while the model answers."""

    def __init__(self, llm: LLMClient, console: Console) -> None:
        self.llm = llm
        self.name = llm.name
        self.console = console

    async def model_window(self) -> ModelWindow:
        """The wrapped client's model window."""
        from browser_agent.llm.model_window import window_of

        return await window_of(self.llm)

    @property
    def local(self) -> bool:
        """True when the wrapped client's model is served on this machine."""
        from browser_agent.llm.model_window import served_locally

        return served_locally(self.llm)

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        from rich.errors import LiveError
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        spinner = Progress(
            SpinnerColumn(),
            TextColumn(f"waiting for the model ({self.name})"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        spinner.add_task("model", total=None)
        try:
            spinner.start()
        except LiveError:  # another display is on screen (a nested call): no spinner
            return await self.llm.complete(messages, tools)
        try:
            return await self.llm.complete(messages, tools)
        finally:
            spinner.stop()


def waiting_for_model(llm: LLMClient, console: Console, as_json: bool = False) -> LLMClient:
    """``llm`` with a spinner on ``console`` while it answers; ``llm`` itself when the
    console is not a terminal or the output is JSON."""
    return WaitingForModel(llm, console) if shows_progress(console, as_json) else llm


def counting(label: str, console: Console, as_json: bool = False) -> Progress:
    """A transient bar counting the items of a batch (``label  3/20  0:00:05  item``),
    disabled off a terminal and for JSON output."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=True,
        disable=not shows_progress(console, as_json),
    )
