"""A real language model in the loop: the demo shop's commands and a few MiniWoB++ tasks
with a model served on this machine (scripts/local_model.sh), over both protocols.

For each protocol (native tool calls, plain-text actions) every command runs once with
skills off: success (the shop's real end state, the MiniWoB page's raw reward of 1.0),
steps, model calls, prompt and completion tokens, seconds per call, and parse failures
(calls that named no tool or an unknown one, or whose arguments were not JSON, and
answers with no call). Then the first protocol's demo-shop runs that succeeded are
harvested and the same commands run again with skills on, with the command of the same
shape as the search-and-sort one (sandals by rating) when it is not among them: a routed
command makes 0 model calls (with nothing harvested the routed pass is skipped: it would
be the planner again). Prints one table. Only 127.0.0.1 is talked to: the model
server, the demo shop, the MiniWoB pages.

    scripts/local_model.sh                         # once: weights, llama-server, started
    .venv/bin/python scripts/bench_llm.py [--base-url URL] [--protocols tools,text]
        [--shop sort-price-asc,open-linked-product] [--miniwob click-test-2,enter-text-2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from browser_agent.browser.session import launched_browser
from browser_agent.demo_site import start_demo_site
from browser_agent.harvest.harvester import harvest
from browser_agent.llm.model_window import ModelWindow, window_of
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import LLMReply
from browser_agent.planner.agent import RunResult, run_command
from browser_agent.settings import Settings, load_settings
from browser_agent.store.db import open_store
from browser_agent.store.rows import StepRow
from browser_agent.testing.miniwob_site import read_instruction, start_miniwob_site

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.offline_suite import CASES, Outcome, Probe  # noqa: E402

PARSE_FAILURES = {"unreadable_action", "unknown_tool", "bad_arguments"}
SHOP = ["sort-price-asc", "open-linked-product", "add-size-quantity", "read-listed-price"]
MINIWOB = ["click-test-2", "enter-text-2", "focus-text-2"]
SAME_SHAPE = {"sort-price-asc": "sort-rating"}  # a command of the same shape, other values


@dataclass
class Timed:
    """The client, with the seconds of each call and its answers with no call counted."""

    llm: OpenAIClient
    seconds: list[float] = field(default_factory=list)
    bare: int = 0

    @property
    def name(self) -> str:
        return self.llm.name

    @property
    def local(self) -> bool:
        return self.llm.local

    async def model_window(self) -> ModelWindow:
        return await window_of(self.llm)

    async def complete(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        started = time.perf_counter()
        reply = await self.llm.complete(messages, tools)
        self.seconds.append(time.perf_counter() - started)
        self.bare += bool(tools) and not reply.tool_calls
        return reply


@dataclass
class LocalProbe(Probe):
    """The suite's probe (cookies and store results as the run finishes) around the model,
    passing on what the server says of it."""

    @property
    def local(self) -> bool:
        return getattr(self.planner, "local", False)

    async def model_window(self) -> ModelWindow:
        return await window_of(self.planner)


@dataclass
class Row:
    """One run of one command."""

    protocol: str
    task: str
    ok: bool
    result: RunResult
    seconds_per_call: float
    parse_failures: int
    why: str = ""


def model_name(base_url: str) -> str:
    """The first model the server lists (llama-server lists the one it runs)."""
    with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=10) as answer:
        return json.loads(answer.read())["data"][0]["id"]


async def one(protocol: str, task: str, make_run, check) -> Row:  # type: ignore[no-untyped-def]
    """Run ``make_run(client, on_step)`` and judge it with ``check(result, probe)``."""
    steps: list[StepRow] = []
    timed = Timed(CLIENT(protocol))
    result, probe = await make_run(timed, steps.append)
    await timed.llm.aclose()
    why = ""
    try:
        check(result, probe)
    except AssertionError as exc:
        why = (str(exc).splitlines() or ["check failed"])[0][:60]
    if result.status != "succeeded" and not why:
        why = result.answer[:60]
    failures = sum(step.error in PARSE_FAILURES for step in steps) + timed.bare
    per_call = statistics.mean(timed.seconds) if timed.seconds else 0.0
    return Row(protocol, task, not why, result, per_call, failures, why)


def shop_run(command: str, start: str, settings: Settings, browser, engine):  # type: ignore[no-untyped-def]
    async def make(timed: Timed, on_step) -> tuple[RunResult, LocalProbe]:  # type: ignore[no-untyped-def]
        probe = LocalProbe(planner=timed, name=timed.name)  # type: ignore[arg-type]
        result = await run_command(
            command, probe, settings, start_url=start, browser=browser, engine=engine,
            max_steps=MAX_STEPS, on_step=on_step,
        )  # fmt: skip
        return result, probe

    return make


def shop_check(case, demo, engine, before: int):  # type: ignore[no-untyped-def]
    def check(result: RunResult, probe: Probe) -> None:
        assert result.status == "succeeded", result.answer
        case.check(Outcome(result, probe, demo.submissions[before:], demo, engine))

    return check


def miniwob_run(site, task: str, seed: int, settings: Settings, browser, engine):  # type: ignore[no-untyped-def]
    name = uuid.uuid4().hex[:12]

    async def make(timed: Timed, on_step) -> tuple[RunResult, str]:  # type: ignore[no-untyped-def]
        url = site.task_url(task, seed, name)
        command = await read_instruction(browser, url)
        result = await run_command(
            command, timed, settings, start_url=url, browser=browser, engine=engine,
            max_steps=MAX_STEPS, on_step=on_step,
        )  # fmt: skip
        return result, name

    return make


def miniwob_check(site):  # type: ignore[no-untyped-def]
    def check(result: RunResult, name: str) -> None:
        for _ in range(20):  # the page posts its reward as the episode ends
            if site.reward(name) is not None:
                break
            time.sleep(0.05)
        reward = site.reward(name)
        assert reward is not None and reward.raw == 1.0, f"reward {reward and reward.raw}"

    return check


async def bench(protocols: list[str], shop: list[str], miniwob: list[str]) -> list[Row]:
    workspace = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    settings = load_settings().with_overrides(workspace=workspace)
    settings = settings.model_copy(update={"browser_endpoint": None})
    planner_only = settings.with_overrides(use_skills=False)
    engine = open_store(settings)
    rows: list[Row] = []
    print(f"workspace {workspace}\n{HEADER}", flush=True)
    with start_demo_site(port=0) as demo, start_miniwob_site() as site:
        async with launched_browser(settings) as browser:

            async def shop_row(protocol: str, name: str, command: str, s: Settings) -> Row:
                case = CASES[name]
                demo.variant = case.variant
                start = f"{demo.url}{case.start}"
                make = shop_run(command, start, s, browser, engine)
                check = shop_check(case, demo, engine, len(demo.submissions))
                row = await one(protocol, name, make, check)
                show(row)
                return row

            for protocol in protocols:
                for name in shop:
                    rows.append(await shop_row(protocol, name, CASES[name].command, planner_only))
                for task in miniwob:
                    make = miniwob_run(site, task, 1000, planner_only, browser, engine)
                    rows.append(await one(protocol, f"miniwob {task}", make, miniwob_check(site)))
                    show(rows[-1])
            sources = [
                Path(row.result.log_path)
                for row in rows
                if row.ok and row.protocol == protocols[0] and not row.task.startswith("miniwob")
            ]
            made = await harvest(sources, settings, engine, browser=browser)
            for result in made:
                said = f"{result.skill.name} ({result.skill.status})" if result.skill else ""
                print(f"harvested {Path(result.source).name}: {said or result.error}", flush=True)
            if not any(result.skill for result in made):  # the planner again, no routing
                print("nothing harvested: the routed pass is skipped", flush=True)
                return rows
            for name in shop:
                rows.append(await shop_row("routed", name, CASES[name].command, settings))
            for name in [SAME_SHAPE[n] for n in shop if SAME_SHAPE.get(n, n) not in shop]:
                rows.append(await shop_row("routed", name, CASES[name].command, settings))
    return rows


def show(row: Row) -> None:
    r = row.result
    print(
        f"{row.protocol:<7} {row.task:<28} {'ok' if row.ok else 'FAIL':<4} {r.steps:>5} "
        f"{r.llm_calls:>5} {r.prompt_tokens:>8} {r.completion_tokens:>6} "
        f"{row.seconds_per_call:>7.1f} {row.parse_failures:>5} {r.seconds:>7.1f}  {row.why}",
        flush=True,
    )


HEADER = (
    f"{'proto':<7} {'task':<28} {'ok':<4} {'steps':>5} {'calls':>5} {'prompt':>8} "
    f"{'compl':>6} {'s/call':>7} {'parse':>5} {'seconds':>7}"
)


def totals(rows: list[Row]) -> None:
    print()
    for protocol in dict.fromkeys(row.protocol for row in rows):
        mine = [row for row in rows if row.protocol == protocol]
        calls = sum(row.result.llm_calls for row in mine)
        seconds = [row.seconds_per_call for row in mine if row.result.llm_calls]
        print(
            f"{protocol}: {sum(row.ok for row in mine)}/{len(mine)} succeeded, {calls} model "
            f"calls, {sum(row.result.prompt_tokens for row in mine)} prompt and "
            f"{sum(row.result.completion_tokens for row in mine)} completion tokens, "
            f"{statistics.mean(seconds) if seconds else 0:.1f} s a call, "
            f"{sum(row.parse_failures for row in mine)} parse failures"
        )


MAX_STEPS = 15
CLIENT = None  # set in main: protocol -> OpenAIClient


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=None, help="default: the settings' LLM base URL")
    parser.add_argument("--protocols", default="tools,text")
    parser.add_argument("--shop", default=",".join(SHOP), help="demo-shop case names")
    parser.add_argument("--miniwob", default=",".join(MINIWOB), help="MiniWoB++ task names")
    parser.add_argument("--max-steps", type=int, default=15)
    args = parser.parse_args()
    settings = load_settings()
    base_url = args.base_url or settings.llm_base_url or "http://127.0.0.1:8090/v1"
    reserve = settings.answer_reserve_tokens
    try:
        model = model_name(base_url)
    except OSError as exc:
        print(f"bench_llm: no model server answers at {base_url} ({exc}); start one with "
              "scripts/local_model.sh", file=sys.stderr)  # fmt: skip
        return 2
    global CLIENT, MAX_STEPS
    MAX_STEPS = args.max_steps

    def client(protocol: str) -> OpenAIClient:
        return OpenAIClient(
            model, base_url, "local", text_actions=protocol == "text", max_tokens=reserve
        )

    CLIENT = client
    protocols = [p for p in args.protocols.split(",") if p]
    shop = [name for name in args.shop.split(",") if name]
    miniwob = [task for task in args.miniwob.split(",") if task]
    unknown = [name for name in shop if name not in CASES]
    if unknown or not set(protocols) <= {"tools", "text"}:
        print(f"bench_llm: unknown shop case or protocol: {unknown or protocols}", file=sys.stderr)
        return 2
    print(f"model {model} at {base_url}", flush=True)
    rows = asyncio.run(bench(protocols, shop, miniwob))
    totals(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
