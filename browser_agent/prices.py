"""What a run's tokens cost: US dollars per million input and output tokens, by model.

The built-in table covers common hosted models; ``BROWSER_AGENT_PRICES`` adds or
replaces entries. A model with no price has no cost (None, never shown as zero); the
offline planner, and a model served on this machine, cost nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from browser_agent.llm.choose import OFFLINE_MODEL

# (input, output) in US dollars per 1M tokens, from openai.com/api/pricing as of 2025-06.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
}

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")  # gpt-4o-2024-08-06 is priced as gpt-4o


def price_of(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """(input, output) dollars per 1M tokens of ``model``: the configured prices over the
    built-in ones, a dated snapshot priced as its model; None when no price is known."""
    table = {**DEFAULT_PRICES, **prices}
    if model == OFFLINE_MODEL:
        return (0.0, 0.0)
    return table.get(model) or table.get(_SNAPSHOT.sub("", model))


def run_cost(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: Mapping[str, tuple[float, float]],
    local: bool = False,
) -> float | None:
    """What these tokens of ``model`` cost in US dollars; None when its price is unknown,
    0 for a model served on this machine (``local``) that the prices do not name."""
    price = price_of(model, prices)
    if price is None and local:
        return 0.0
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def shown_cost(cost: float | None) -> str:
    """A cost as people read it (``$0.0123``); empty when it is unknown."""
    if cost is None:
        return ""
    if cost == 0:
        return "$0"
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"


class _Counted(Protocol):
    model: str
    prompt_tokens: int
    completion_tokens: int


def cost_of_run(run: _Counted, prices: Mapping[str, tuple[float, float]]) -> float | None:
    """What a stored run's tokens cost in US dollars; None when its model has no price."""
    return run_cost(run.model, run.prompt_tokens, run.completion_tokens, prices)


def priced(
    fields: dict[str, object], run: _Counted, prices: Mapping[str, tuple[float, float]]
) -> dict[str, object]:
    """A run's JSON fields with ``cost_usd`` (null when its model has no price)."""
    return {**fields, "cost_usd": cost_of_run(run, prices)}
