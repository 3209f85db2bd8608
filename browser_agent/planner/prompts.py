"""Prompts of the planner, kept as text files in the package."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from importlib import resources


@cache
def prompt(name: str) -> str:
    """The text of prompts/<name>.txt."""
    return resources.files("browser_agent.planner").joinpath(f"prompts/{name}.txt").read_text()


def task_message(command: str, start_url: str | None) -> str:
    """The first user message: the command, quoted, with the start URL when given."""
    start = f" starting at {start_url}" if start_url else ""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return prompt("task").strip().format(command=command, start=start, now=now)
