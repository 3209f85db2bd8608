"""What harvesting saves on recurring commands: LLM calls, tokens, steps and wall time.

For each command shape on the demo shop: a first run through the planner (the offline
planner behind the local OpenAI-compatible test server, with a fixed simulated latency per
model call) is harvested; then each later command of the same shape runs twice, once
through the planner with skills switched off (before) and once with skills (after).
Everything talks to 127.0.0.1 only. Run:
    .venv/bin/python scripts/bench_harvest.py [--latency 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site import start_demo_site
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import load_settings
from browser_agent.store.db import open_store
from browser_agent.testing.openai_server import start_test_llm_server

# (first command, later commands of the same shape)
SHAPES: list[tuple[str, list[str]]] = [
    (
        "search for trail shoes and sort by price low to high",
        [
            "search for sandals and sort by customer rating",
            "search for running shoes and sort by best seller",
        ],
    ),
    ("search for hiking shoes", ["search for sandals", "search for road shoes"]),
    (
        "add Road Glide 5 in size 44, quantity 2 to the cart",
        [
            "add Trail Blazer 2 in size 40, quantity 1 to the cart",
            "add Tempo Flash in size 42, quantity 3 to the cart",
        ],
    ),
    ("open Trail Blazer 2", ["open Road Glide 5", "open Daily Trainer"]),
    ("find stores near Berlin", ["find stores near Hamburg", "find stores near Paris"]),
    ("log in as demo with password secret123", ["log in as demo with password secret123"]),
    ("go to deals and accept the cookies", ["go to deals and accept the cookies"]),
    (
        'send the message "Where is my order?" as Ada Lovelace through the help contact form',
        [
            'send the message "Do you ship to Norway?" as Grace Hopper'
            " through the help contact form",
            'send the message "Thanks!" as Alan Turing through the help contact form',
        ],
    ),
    (
        "dismiss the cookie banner on the deals page",
        ["dismiss the cookie banner on the deals page"],
    ),
]


@dataclass
class Tally:
    """Sums over runs."""

    runs: int = 0
    succeeded: int = 0
    llm_calls: int = 0
    tokens: int = 0
    steps: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def add(self, result: RunResult) -> None:
        self.runs += 1
        self.succeeded += result.status == "succeeded"
        self.llm_calls += result.llm_calls
        self.tokens += result.prompt_tokens + result.completion_tokens
        self.steps += result.steps
        self.seconds += result.seconds


def reduction(before: float, after: float) -> str:
    return f"{(1 - after / before) * 100:5.1f}%" if before else "   - "


async def main(latency: float) -> None:
    workspace = Path(tempfile.mkdtemp(prefix="bench-harvest-"))
    settings = load_settings().with_overrides(workspace=workspace)
    baseline = settings.with_overrides(use_skills=False)
    engine = open_store(settings)
    totals = (Tally(), Tally())
    print(f"simulated model latency: {latency:.2f} s per call; workspace {workspace}")
    header = (
        f"{'shape':<44} {'runs':>4} | {'calls':>5} {'tokens':>7} {'steps':>5} {'secs':>6} |"
        f" {'calls':>5} {'tokens':>7} {'steps':>5} {'secs':>6} | {'calls':>6} {'secs':>6}"
    )
    print(f"{'':<49}| {'before (planner)':^27} | {'after (harvested skill)':^27} | reduction")
    print(header)
    with start_demo_site(port=0) as site, start_test_llm_server() as server:
        server.latency_s = latency
        llm = OpenAIClient("offline-via-http", base_url=server.base_url)
        start = f"{site.url}/"
        async with launched_browser(settings) as browser:
            for first, later in SHAPES:
                learned = await run_command(
                    first, llm, settings, start_url=start, browser=browser, engine=engine
                )
                made = await harvest([Path(learned.log_path)], settings, engine, browser=browser)
                before, after = Tally(), Tally()
                for command in later:
                    before.add(
                        await run_command(
                            command, llm, baseline, start_url=start, browser=browser, engine=engine
                        )
                    )
                    after.add(
                        await run_command(
                            command, llm, settings, start_url=start, browser=browser, engine=engine
                        )
                    )
                for tally, total in zip((before, after), totals, strict=True):
                    for name in ("runs", "succeeded", "llm_calls", "tokens", "steps", "seconds"):
                        setattr(total, name, getattr(total, name) + getattr(tally, name))
                skill = made[0].skill.name if made and made[0].skill else f"none: {made[0].error}"
                print(
                    f"{first[:44]:<44} {before.runs:>4} | {before.llm_calls:>5} {before.tokens:>7}"
                    f" {before.steps:>5} {before.seconds:>6.1f} | {after.llm_calls:>5}"
                    f" {after.tokens:>7} {after.steps:>5} {after.seconds:>6.1f} |"
                    f" {reduction(before.llm_calls, after.llm_calls)}"
                    f" {reduction(before.seconds, after.seconds)}  [{skill}; "
                    f"{after.succeeded}/{after.runs} ok]"
                )
    before, after = totals
    print(
        f"{'total':<44} {before.runs:>4} | {before.llm_calls:>5} {before.tokens:>7}"
        f" {before.steps:>5} {before.seconds:>6.1f} | {after.llm_calls:>5} {after.tokens:>7}"
        f" {after.steps:>5} {after.seconds:>6.1f} | {reduction(before.llm_calls, after.llm_calls)}"
        f" {reduction(before.seconds, after.seconds)}"
    )
    print(
        f"succeeded: before {before.succeeded}/{before.runs}, after {after.succeeded}/{after.runs};"
        f" token reduction {reduction(before.tokens, after.tokens).strip()},"
        f" step reduction {reduction(before.steps, after.steps).strip()}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    asyncio.run(main(parser.parse_args().latency))
