"""Recall in a long run: write ten short biographies, then answer what the first one said."""

from __future__ import annotations

import json
import re

from playwright.async_api import Browser

from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.store.db import open_store
from browser_agent.store.memory_models import entries

COMMAND = "Write ten short biographies, then answer what you wrote about the first"
PEOPLE = [
    ("Ada Lovelace", 1815, "London", "wrote the first published computer program"),
    ("Alan Turing", 1912, "London", "defined the universal machine"),
    ("Grace Hopper", 1906, "New York", "built the first compiler"),
    ("Katherine Johnson", 1918, "White Sulphur Springs", "computed orbital paths for NASA"),
    ("Edsger Dijkstra", 1930, "Rotterdam", "found the shortest-path algorithm"),
    ("Barbara Liskov", 1939, "Los Angeles", "shaped data abstraction"),
    ("Donald Knuth", 1938, "Milwaukee", "wrote The Art of Computer Programming"),
    ("Margaret Hamilton", 1936, "Paoli", "led the Apollo flight software team"),
    ("John Backus", 1924, "Philadelphia", "created Fortran"),
    ("Frances Allen", 1932, "Peru, New York", "pioneered optimizing compilers"),
]
BIOGRAPHIES = [
    f"Biography {n}: {name} was born in {year} in {city} and {deed}. " + "Remembered widely. " * 6
    for n, (name, year, city, deed) in enumerate(PEOPLE, start=1)
]


class Writer:
    """One scripted model for everything: the planner writing biographies, and the
    memory's summary, key-point, consolidation and recall calls."""

    def __init__(self) -> None:
        self.planner_requests: list[list[dict]] = []
        self.planner_tools: list[str] = []

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        names = [tool["function"]["name"] for tool in tools]
        prompt = messages[-1]["content"] or ""
        if "tell_user" in names:
            self.planner_tools = names
            return self.plan(messages)
        bios = sorted(set(re.findall(r"Biography \d+: [^.]*\.", prompt)))
        if names:  # append_to_short_term_memory / append_to_long_term_memory
            return LLMReply(None, [ToolCall("m", names[0], json.dumps({"memories": bios}))])
        if "The agent asks:" in prompt:
            first = [bio for bio in bios if bio.startswith("Biography 1:")]
            return LLMReply(f"You wrote: {first[0]}" if first else "Not remembered.")
        return LLMReply("Key facts: " + " ".join(bios))  # a summary

    def plan(self, messages: list[dict]) -> LLMReply:
        self.planner_requests.append(messages)
        n = len(self.planner_requests) - 1
        if n < len(BIOGRAPHIES):
            call = ToolCall(f"c{n}", "tell_user", json.dumps({"message": BIOGRAPHIES[n]}))
        elif n == len(BIOGRAPHIES):
            hint = "What did I write in the first biography?"
            call = ToolCall(f"c{n}", "recall", json.dumps({"hint": hint}))
        else:
            answer = {"answer": messages[-1]["content"], "success": True}
            call = ToolCall(f"c{n}", "finish", json.dumps(answer))
        return LLMReply(None, [call])


async def test_recall_brings_back_the_first_biography(settings: Settings, browser: Browser) -> None:
    settings = settings.with_overrides(
        memory_manager=True,
        context_limit_tokens=3_900,
        answer_reserve_tokens=500,
        summary_token_limit=150,
        memory_chat_context_tokens=400,
        memory_short_term_size=2,
    )
    writer = Writer()
    open_store(settings)  # an existing store: the run opens it with sqlite3, the manager's ORM
    result = await run_command(COMMAND, FunctionClient(writer), settings, browser=browser)

    assert result.status == "succeeded", result.answer
    assert "Ada Lovelace was born in 1815 in London" in result.answer
    before_recall = json.dumps(writer.planner_requests[len(BIOGRAPHIES)])
    assert BIOGRAPHIES[0] not in before_recall, "the first biography had left the context"
    assert "Summary of the earlier steps" in before_recall
    long_term = [e.text for e in entries(open_store(settings), "long")]
    assert any(text.startswith("Biography 1: Ada Lovelace") for text in long_term)
    assert "recall" in writer.planner_tools, "an active memory manager offers recall"
    assert result.llm_calls > len(writer.planner_requests), "memory calls are counted"
