"""Prompts of the planner, kept as text files in the package."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from importlib import resources

from browser_agent.skills.end_state import search_terms


@cache
def prompt(name: str) -> str:
    """The text of prompts/<name>.txt."""
    return resources.files("browser_agent.planner").joinpath(f"prompts/{name}.txt").read_text()


def task_message(command: str, start_url: str | None) -> str:
    """The first user message: the command, quoted, with the start URL when given, and how
    to make each search it names (a small model clicks a link named with one word)."""
    start = f" starting at {start_url}" if start_url else ""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    searches = [prompt("task_search").strip().format(term=t) for t in search_terms(command)]
    return " ".join(
        [prompt("task").strip().format(command=command, start=start, now=now)] + searches
    )
