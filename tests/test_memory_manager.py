"""Memory across runs: chat context -> short-term -> long-term, recall, the CLI."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from browser_agent.cli.app import app
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.memory import EstimateCounter, ManagerLimits, MemoryManager
from browser_agent.memory.manager import LONG_TERM_TOOL, SHORT_TERM_TOOL, entries
from browser_agent.memory.prompts import Prompts
from browser_agent.settings import Settings
from browser_agent.store.db import open_store


class MemoryModel:
    """A scripted manager model: keeps every listed line as a memory, answers recall
    questions with the memory lines that share a word with the question."""

    def __init__(self, call_tools: bool = True) -> None:
        self.requests: list[tuple[str, list[str]]] = []
        self.call_tools = call_tools

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        prompt = messages[-1]["content"]
        names = [tool["function"]["name"] for tool in tools]
        self.requests.append((prompt, names))
        listed = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
        if not names:  # recall
            question = re.search(r'asks: "(.*)"', prompt).group(1).lower().split()
            hits = [line for line in listed if any(word in line.lower() for word in question)]
            return LLMReply("From memory: " + " ".join(hits))
        kept = [f"kept: {line.removeprefix('kept: ')}" for line in listed]
        if not self.call_tools:
            return LLMReply("\n".join(f"- {line}" for line in kept))
        return LLMReply(None, [ToolCall("m1", names[0], json.dumps({"memories": kept}))])


@pytest.fixture
def engine(settings: Settings) -> Engine:
    return open_store(settings)


def manager(engine: Engine, model: MemoryModel, **limits: float) -> MemoryManager:
    return MemoryManager(
        engine,
        FunctionClient(model),
        EstimateCounter(),
        ManagerLimits(**limits),
        secrets=lambda: {"hunter2"},
        run_id="run-1",
    )


def texts(engine: Engine, kind: str) -> list[str]:
    return [entry.text for entry in entries(engine, kind)]


async def test_chat_overflow_becomes_short_term_key_points(engine: Engine) -> None:
    model = MemoryModel()
    memory = manager(engine, model, chat_tokens=200, chat_ratio=0.5)
    lines = [f"Tool open_url answered: Page loaded: http://shop/p/{n}." for n in range(20)]
    await memory.remember(lines)
    chat, short = texts(engine, "chat"), texts(engine, "short")
    assert sum(e.tokens for e in entries(engine, "chat")) <= 200
    assert short[0] == "kept: Tool open_url answered: Page loaded: http://shop/p/0."
    assert chat[-1] == lines[-1], "the newest lines stay in the chat context"
    assert len(short) + len(chat) == len(lines), "each line either kept as a point or still there"
    prompt, tools = model.requests[0]
    assert tools == [SHORT_TERM_TOOL]
    assert prompt.startswith(Prompts().text("extract").split("{")[0])
    assert memory.usage.llm_calls == len(model.requests)


async def test_short_term_overflow_is_consolidated_into_long_term(engine: Engine) -> None:
    model = MemoryModel()
    memory = manager(engine, model, chat_tokens=120, short_size=4, short_ratio=0.5)
    await memory.remember([f"Fact number {n} about shoes." for n in range(20)])
    assert 0 < len(texts(engine, "short")) <= 4
    long = texts(engine, "long")
    assert long[0] == "kept: Fact number 0 about shoes.", "consolidated through its own tool"
    assert [tools for _, tools in model.requests].count([LONG_TERM_TOOL]) >= 1


async def test_a_model_that_answers_in_text_still_leaves_its_points(engine: Engine) -> None:
    memory = manager(engine, MemoryModel(call_tools=False), chat_tokens=100)
    await memory.remember(["The trail shoe costs $89.", "The road shoe costs $120."] * 10)
    assert texts(engine, "short")[0] == "kept: The trail shoe costs $89."


async def test_recall_answers_the_question_rather_than_listing_memories(engine: Engine) -> None:
    model = MemoryModel()
    memory = manager(engine, model, chat_tokens=400, short_size=2)
    await memory.remember(["The cheapest trail shoe is the Ridge Runner at $59."])
    await memory.remember([f"Filler {n}: " + "x " * 40 for n in range(30)])
    assert any("Ridge Runner" in text for text in texts(engine, "long"))
    answer = await memory.recall("cheapest trail shoe")
    assert answer == "From memory: kept: The cheapest trail shoe is the Ridge Runner at $59."
    prompt, tools = model.requests[-1]
    assert tools == [] and 'The agent asks: "cheapest trail shoe"' in prompt
    assert "Filler" in prompt, "the manager read all memories and picked the answer"


async def test_recall_reads_the_most_related_memories_within_its_budget(engine: Engine) -> None:
    model = MemoryModel()
    memory = manager(engine, model, chat_tokens=10_000, recall_tokens=40)
    await memory.remember([f"Unrelated note {n} about the weather." for n in range(30)])
    await memory.remember(["The Ridge Runner costs $59."])
    await memory.remember([f"Another note {n}." for n in range(30)])
    await memory.recall("what does the Ridge Runner cost")
    prompt, _ = model.requests[-1]
    assert "The Ridge Runner costs $59." in prompt
    assert prompt.count("\n- ") * 10 <= 40 + 10


async def test_nothing_remembered_needs_no_model_call(engine: Engine) -> None:
    model = MemoryModel()
    assert await manager(engine, model).recall("anything") == "Nothing is remembered yet."
    assert model.requests == []


async def test_memories_are_redacted_and_outlive_the_manager(engine: Engine) -> None:
    await manager(engine, MemoryModel()).remember(["Typed the password hunter2 into #password."])
    fresh = MemoryManager(engine, FunctionClient(MemoryModel()), EstimateCounter())
    assert [e.text for e in entries(fresh.engine, "chat")] == [
        "Typed the password ******** into #password."
    ]
    assert entries(engine)[0].run_id == "run-1"


async def test_memory_cli_lists_searches_and_clears(
    engine: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    await manager(engine, MemoryModel()).remember(["The Ridge Runner costs $59.", "Size 42."])
    monkeypatch.setenv("BROWSER_AGENT_WORKSPACE", str(settings.workspace))
    runner = CliRunner()
    listed = runner.invoke(app, ["memory", "list"])
    assert listed.exit_code == 0 and "Ridge Runner" in listed.output and "Size 42" in listed.output
    found = runner.invoke(app, ["memory", "search", "ridge"])
    assert "Ridge Runner" in found.output and "Size 42" not in found.output
    assert runner.invoke(app, ["memory", "clear"]).exit_code == 2
    assert len(entries(engine)) == 2
    cleared = runner.invoke(app, ["memory", "clear", "--yes"])
    assert cleared.exit_code == 0 and "Deleted 2 memories." in cleared.output
    assert entries(engine) == []
