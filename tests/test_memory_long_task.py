"""A long task on the demo shop through the real client and the test LLM server: 60+ steps
over many pages, and no request ever exceeds the configured context limit."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.async_api import Browser

from browser_agent.demo_site import DemoSite
from browser_agent.demo_site.catalog import PRODUCTS
from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.memory.prompts import Prompts
from browser_agent.planner.agent import run_command
from browser_agent.settings import Settings
from browser_agent.testing.openai_server import estimate_tokens, start_test_llm_server

COMMAND = "Tour the shop: open every page, look at it, follow a link, and report what you saw"
CONTEXT_LIMIT = 5_000
PATHS = ["/", "/search?q=trail", "/cart", "/stores", "/help", "/login"] + [
    product.url for product in PRODUCTS[:14]
]


class Tour:
    """A scripted planner: for each page, open it, get_dom, click its first link; then finish.
    Summary requests (no tools) get a short summary of the pages seen."""

    def __init__(self, base_url: str) -> None:
        self.urls = [base_url.rstrip("/") + path for path in PATHS]
        self.steps = 0

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        if not tools:
            seen = sorted(set(re.findall(r"Page loaded: (\S+)", messages[-1]["content"])))
            return LLMReply("Goal: tour the shop. Done: visited " + " ".join(seen))
        n, self.steps = self.steps, self.steps + 1
        page, kind = divmod(n, 3)
        if page == len(self.urls):
            return self.call(n, "finish", answer=f"Toured {page} pages.", success=True)
        if kind == 0:
            return self.call(n, "open_url", url=self.urls[page])
        if kind == 1:
            return self.call(n, "get_dom", content_type="all_fields")
        link = re.search(r"^\[(\d+)\] link", messages[-1]["content"] or "", re.MULTILINE)
        if link is None:
            return self.call(n, "get_url")
        return self.call(n, "click", selector=f"[mmid='{link.group(1)}']")

    @staticmethod
    def call(n: int, name: str, **arguments: str | bool) -> LLMReply:
        return LLMReply(None, [ToolCall(f"call_{n}", name, json.dumps(arguments))])


def fixed_lines(template: str) -> list[str]:
    """The lines of a prompt template without placeholders: what every request shows."""
    return [line for line in Prompts().text(template).splitlines() if line and "{" not in line]


async def test_a_long_task_stays_within_the_context_limit(
    settings: Settings, browser: Browser, demo: DemoSite
) -> None:
    settings = settings.with_overrides(
        context_limit_tokens=CONTEXT_LIMIT, answer_reserve_tokens=1_000, summary_token_limit=400
    )
    tour = Tour(demo.url)
    with start_test_llm_server(tour) as server:
        server.max_context_tokens = CONTEXT_LIMIT
        client = OpenAIClient("test-model", base_url=server.base_url, max_retries=0)
        result = await run_command(
            COMMAND, client, settings, start_url=demo.url, max_steps=80, browser=browser
        )
        await client.aclose()
    planner = [body for body in server.requests if body.get("tools")]
    summaries = [
        body["messages"][0]["content"] for body in server.requests if not body.get("tools")
    ]

    assert result.status == "succeeded", result.answer
    assert result.steps >= 60 and len(PATHS) >= 20
    assert server.violations == [], "no request exceeded the context limit"
    reserve = settings.answer_reserve_tokens
    assert all(
        estimate_tokens(b["messages"], b["tools"]) <= CONTEXT_LIMIT - reserve for b in planner
    )
    assert all(COMMAND in json.dumps(body["messages"]) for body in server.requests)
    fresh = [text for text in summaries if all(line in text for line in fixed_lines("summarize"))]
    recursive = [t for t in summaries if all(line in t for line in fixed_lines("resummarize"))]
    assert fresh and recursive and len(fresh) + len(recursive) == len(summaries)
    assert summaries.index(recursive[0]) > 0, "the first summary is made from the messages alone"
    assert "Summary of the earlier steps" in planner[-1]["messages"][2]["content"]
    assert all(answers_follow_calls(body["messages"]) for body in planner)
    assert result.llm_calls == len(server.requests), "summary calls count as LLM calls"
    logged = json.loads(Path(result.log_path).read_text())
    history = [{k: v for k, v in m.items() if k != "tool_responses"} for m in logged]
    assert estimate_tokens(history, []) > 2 * CONTEXT_LIMIT, "unbounded, it would not fit"


def answers_follow_calls(messages: list[dict]) -> bool:
    """Every tool answer in a request belongs to a call of the assistant message before it."""
    calls: set[str] = set()
    for message in messages:
        if message["role"] == "tool" and message["tool_call_id"] not in calls:
            return False
        if message["role"] != "tool":
            calls = {call["id"] for call in message.get("tool_calls") or []}
    return True
