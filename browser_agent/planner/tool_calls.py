"""The tools the planner's model may call, and running one call: a malformed call, a wrong
argument or an action's error becomes an answer the model can act on."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from browser_agent.errors import ActionError
from browser_agent.llm.types import ToolCall
from browser_agent.planner.people import ask_user, tell_user
from browser_agent.skills.primitive import PRIMITIVES
from browser_agent.tools import tool_schema

# What most tasks need, for a small model (the llm_tools setting): fewer tools to tell apart
BASIC_TOOLS = (
    "open_url",
    "get_dom",
    "find_elements",
    "click",
    "enter_text",
    "select_option",
    "scroll",
    "go_back",
    "finish",
)


async def finish(
    answer: Annotated[str, "The result for the person: what was found or done, final URL."],
    success: Annotated[bool, "True when the task was done, false when it could not be."],
) -> str:
    """Finish the task with the final answer, saying whether it was done."""
    if not isinstance(answer, str):
        raise ValueError("the answer of finish must be text")
    if not isinstance(success, bool):
        raise ValueError(f"success must be true or false, not {json.dumps(success)}")
    return answer


@dataclass
class Outcome:
    """The answer of one tool call, as the model will read it."""

    text: str
    ok: bool
    error: str | None = None


@dataclass
class Tools:
    """The callables the model may use, by name, and their schemas."""

    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)

    @classmethod
    def default(cls, tool_set: str = "all") -> Tools:
        """The primitives, the person's tools and finish; ``basic``: only BASIC_TOOLS."""
        every = {**PRIMITIVES, "ask_user": ask_user, "tell_user": tell_user, "finish": finish}
        if tool_set == "basic":
            return cls({name: every[name] for name in BASIC_TOOLS})
        return cls(every)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool_schema(fn) for fn in self.functions.values()]


async def execute(call: ToolCall, tools: Tools) -> Outcome:
    """Run one tool call; anything wrong with it becomes an answer the model can act on."""
    fn = tools.functions.get(call.name)
    if not call.name:
        return Outcome(
            f"Error: your action could not be read ({call.arguments[:200]!r}). Write one action "
            'block holding a JSON object such as {"name": "get_dom", "arguments": {}}.',
            False,
            "unreadable_action",
        )
    if fn is None:
        known = ", ".join(tools.functions)
        return Outcome(
            f"Error: there is no tool named {call.name!r}. Tools: {known}.", False, "unknown_tool"
        )
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as exc:
        return Outcome(
            f"Error: the arguments of {call.name} are not valid JSON ({exc.msg} at character "
            f"{exc.pos}). Send them again as one JSON object.",
            False,
            "bad_arguments",
        )
    if not isinstance(arguments, dict):
        return Outcome(
            f"Error: the arguments of {call.name} must be a JSON object.", False, "bad_arguments"
        )
    try:
        inspect.signature(fn).bind(**arguments)
    except TypeError as exc:
        return Outcome(f"Error: wrong arguments for {call.name}: {exc}.", False, "bad_arguments")
    try:
        return Outcome(str(await fn(**arguments)), True)
    except ActionError as exc:
        return Outcome(f"Error: {exc}", False, exc.kind)
    except (ValueError, TypeError) as exc:
        return Outcome(f"Error: {exc}", False, "bad_arguments")


def answer_message(call: ToolCall, text: str) -> dict[str, Any]:
    """The tool message that answers ``call`` with ``text`` in the history."""
    return {"role": "tool", "tool_call_id": call.id, "content": text}
