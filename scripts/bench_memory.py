"""Benchmark the planner's memory on synthetic runs of 20, 60 and 200 steps.

For each run length, with and without memory (without: the whole history is sent),
prints the largest prompt in tokens, the total tokens sent (summary calls included)
and the number of summary calls. The model is a local function (FunctionClient): no
browser and no network. Tokens are counted as the test LLM server counts them.

    .venv/bin/python scripts/bench_memory.py [--context-limit 16000] [--dom-lines 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass

from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.memory import Budget, ContextMemory, EstimateCounter
from browser_agent.planner.prompts import prompt, task_message
from browser_agent.planner.tool_calls import Tools
from browser_agent.testing.openai_server import estimate_tokens

RUN_LENGTHS = (20, 60, 200)
COMMAND = "Compare the prices of every trail shoe in the shop and report the cheapest"


@dataclass
class Figures:
    """What one run sent to the model."""

    largest_prompt: int = 0
    total_sent: int = 0
    summary_calls: int = 0

    def add(self, messages: list[dict], tools: list[dict]) -> None:
        tokens = estimate_tokens(messages, tools)
        self.largest_prompt = max(self.largest_prompt, tokens)
        self.total_sent += tokens


def page(n: int, lines: int) -> str:
    """A get_dom answer of ``lines`` element lines, like a product listing page."""
    rows = "\n".join(
        f'[{i}] link "Trail shoe {n}-{i} ${40 + i}.99" href="/product/shoe-{n}-{i}"'
        for i in range(lines)
    )
    return f'Page "Results page {n}" at http://127.0.0.1:8811/search?page={n}\n{rows}'


def step(n: int, dom_lines: int) -> list[dict]:
    """Step n of the synthetic run: open a page, look at it, or click on it."""
    name, answer = [
        ("open_url", f"Page loaded: http://127.0.0.1:8811/search?page={n}, title 'Results'."),
        ("get_dom", page(n, dom_lines)),
        ("click", f"Clicked <a href='/product/shoe-{n}'>. Price ${n % 90 + 30}.99, in stock."),
    ][n % 3]
    call = ToolCall(f"call_{n}", name, json.dumps({"n": n}))
    return [
        LLMReply(f"Step {n}: {name}.", [call]).to_message(),
        {"role": "tool", "tool_call_id": call.id, "content": answer},
    ]


async def run(steps: int, memory_on: bool, limit: int, dom_lines: int) -> Figures:
    """One synthetic run; each step's context goes through the memory when it is on."""
    figures = Figures()

    def summarize(messages: list[dict], tools: list[dict]) -> LLMReply:
        figures.add(messages, tools)
        return LLMReply("Goal: compare trail shoe prices. Done: visited pages. " * 12)

    tools = Tools.default().schemas()
    memory = ContextMemory(
        FunctionClient(summarize), Budget(limit, 2_000, summary_limit=1_000), EstimateCounter()
    )
    messages = [
        {"role": "system", "content": prompt("system").strip()},
        {"role": "user", "content": task_message(COMMAND, "http://127.0.0.1:8811/")},
    ]
    for n in range(steps):
        context = await memory.fit(messages, tools) if memory_on else messages
        figures.add(context, tools)
        messages += step(n, dom_lines)
    figures.summary_calls = memory.usage.summary_calls
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context-limit", type=int, default=16_000, help="model context tokens")
    parser.add_argument("--dom-lines", type=int, default=60, help="element lines per page")
    args = parser.parse_args()
    print(
        f"context limit {args.context_limit} tokens, answer reserve 2000, summary limit 1000, "
        f"pages of {args.dom_lines} element lines"
    )
    print(f"{'steps':>5} {'memory':>6} {'largest prompt':>15} {'total sent':>12} {'summaries':>9}")
    for steps in RUN_LENGTHS:
        for memory_on in (False, True):
            f = await run(steps, memory_on, args.context_limit, args.dom_lines)
            label = "on" if memory_on else "off"
            print(
                f"{steps:>5} {label:>6} {f.largest_prompt:>15,} {f.total_sent:>12,} "
                f"{f.summary_calls:>9}"
            )


if __name__ == "__main__":
    asyncio.run(main())
