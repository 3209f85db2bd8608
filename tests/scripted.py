"""Scripted model policies for tests: each decides from the messages alone, like a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from browser_agent.dom.page_lines import element_lines
from browser_agent.llm.types import FunctionClient, LLMReply, ToolCall, Usage

# A step of a script: a tool name and a function of the last get_dom text to its arguments.
Action = tuple[str, Callable[[str], dict]]


def spelled_out(dom: str) -> str:
    """get_dom text with the kind of every element line written out, as a reader takes it:
    ``text`` for page text, the kind above for an item that says ``-``."""
    lines = dom.splitlines()
    return "\n".join(
        re.sub(r'^(\[\d+\]) (?:- )?(?=")', rf"\1 {read.kind} ", raw) if read else raw
        for raw, read in zip(lines, element_lines(lines), strict=True)
    )


def mmid(pattern: str) -> Callable[[str], str]:
    """A function finding the selector of the first get_dom line that matches ``pattern``."""

    def find(dom: str) -> str:
        match = re.search(rf"^\[(\d+)\] {pattern}", spelled_out(dom), flags=re.MULTILINE)
        if not match:
            raise AssertionError(f"scripted model: nothing matches {pattern!r}")
        return f"[mmid='{match.group(1)}']"

    return find


def last_dom(messages: list[dict]) -> str:
    """The latest get_dom answer in the conversation."""
    for message in reversed(messages):
        content = message.get("content") or ""
        if message.get("role") == "tool" and content.startswith("Page "):
            return content
    return ""


def succeeded_calls(messages: list[dict]) -> int:
    """Tool answers that were not errors or skipped calls: the script's progress."""
    return sum(
        1
        for m in messages
        if m.get("role") == "tool"
        and not (m.get("content") or "").startswith(("Error", "Not executed"))
    )


@dataclass
class Script:
    """A model that plays ``actions`` in order, retrying a step whose call failed, then
    calls finish with ``answer``."""

    actions: list[Action]
    answer: str = "Done."
    batch: int = 1

    def __call__(self, messages: list[dict], tools: list[dict]) -> LLMReply:
        done = succeeded_calls(messages)
        if done >= len(self.actions):
            arguments = json.dumps({"answer": self.answer, "success": True})
            finish = ToolCall(f"call_{done + 1}", "finish", arguments)
            return LLMReply(content=None, tool_calls=[finish], usage=Usage(100, 10))
        calls = []
        for offset, (name, arguments) in enumerate(self.actions[done : done + self.batch]):
            try:
                args = arguments(last_dom(messages))
            except AssertionError:
                if calls:
                    break  # a later action needs a page the model has not seen yet
                raise
            calls.append(ToolCall(f"call_{done + offset + 1}", name, json.dumps(args)))
        return LLMReply(content=None, tool_calls=calls, usage=Usage(100, 10))


def search_and_sort(start_url: str, term: str, sort_label: str) -> Script:
    """Open the shop, search for ``term``, sort the results."""
    return Script(
        [
            ("open_url", lambda _dom: {"url": start_url}),
            ("get_dom", lambda _dom: {"content_type": "input_fields"}),
            (
                "enter_text",
                lambda dom: {"selector": mmid("searchbox")(dom), "text": term, "press_enter": True},
            ),
            ("get_dom", lambda _dom: {"content_type": "input_fields"}),
            (
                "select_option",
                lambda dom: {"selector": mmid("combobox")(dom), "option": sort_label},
            ),
        ],
        answer=f"Searched for {term} and sorted by {sort_label}.",
    )


def calls_in_order(*calls: tuple[str, dict]) -> FunctionClient:
    """A model that makes ``calls`` (tool name, arguments) in order, one per reply."""
    replies = iter(calls)

    def model(messages: list[dict], tools: list[dict]) -> LLMReply:
        name, arguments = next(replies)
        return LLMReply(None, [ToolCall(f"c{len(messages)}", name, json.dumps(arguments))])

    return FunctionClient(model)


def finish(answer: str) -> tuple[str, dict]:
    """A successful finish call, with ``answer``."""
    return "finish", {"answer": answer, "success": True}
