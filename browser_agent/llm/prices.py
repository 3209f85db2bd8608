"""What a run's tokens cost in US dollars: ``BROWSER_AGENT_PRICES`` (dollars per million
input and output tokens, by model) over the maintained price map of ``genai-prices``.

A model with no price has no cost (None, never shown as zero); the offline planner, a
model served on this machine, and a run that called no model cost nothing. genai-prices
takes about a second to import, so a run is priced once, when it ends, and its cost kept
on its row; listings read that (or the configured prices), never the price map.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from browser_agent.llm.choose import OFFLINE_MODEL

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")  # gpt-4o-2024-08-06 is priced as gpt-4o
_PER_TOKEN = 1_000_000  # prices are per million tokens


def configured_cost(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: Mapping[str, tuple[float, float]],
) -> float | None:
    """The cost by the configured prices alone (a dated snapshot priced as its model), 0
    for the offline planner or no tokens; None when they do not decide it."""
    price = _configured_price(model, prices)
    if price is not None:
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / _PER_TOKEN
    if model == OFFLINE_MODEL or prompt_tokens + completion_tokens == 0:
        return 0.0
    return None


def _configured_price(
    model: str, prices: Mapping[str, tuple[float, float]]
) -> tuple[float, float] | None:
    """The configured (input, output) price of ``model`` or of the model it is a snapshot of."""
    return prices.get(model) or prices.get(_SNAPSHOT.sub("", model))


def run_cost(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: Mapping[str, tuple[float, float]],
    local: bool = False,
) -> float | None:
    """What these tokens of ``model`` cost in US dollars: the configured prices, else 0
    for a model served on this machine (``local``), else genai-prices' price; None when
    no price is known."""
    cost = configured_cost(model, prompt_tokens, completion_tokens, prices)
    if cost is not None:
        return cost
    if local:
        return 0.0
    return _maintained_cost(model, prompt_tokens, completion_tokens)


def _maintained_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The cost by genai-prices' bundled map (no network): as OpenAI prices the model,
    else as the provider genai-prices finds for it; None when it knows the model nowhere."""
    from genai_prices import Usage, calc_price

    usage = Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens)
    for provider in ("openai", None):
        try:
            return float(calc_price(usage, model_ref=model, provider_id=provider).total_price)
        except LookupError:
            continue
    return None


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
    cost_usd: float | None


def cost_of_run(run: _Counted, prices: Mapping[str, tuple[float, float]]) -> float | None:
    """What a stored run cost in US dollars: by the configured prices when they name its
    model, else as priced when it ended; None when its model had no price."""
    if run.cost_usd is not None and _configured_price(run.model, prices) is None:
        return run.cost_usd
    return configured_cost(run.model, run.prompt_tokens, run.completion_tokens, prices)
