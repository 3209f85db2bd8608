"""Plain-text action format for models without native tool calling.

The model writes its reasoning, then one fenced block::

    ```action
    {"name": "tool_name", "arguments": {...}}
    ```

Only the last block of an answer counts. The task ends with the ``finish`` action; an
answer without a block that ends in ``##TERMINATE##`` (the end marker) is read as that
action with the text as its answer, which still has to say whether it succeeded; any
other answer without a block calls nothing. History in native shape (assistant
``tool_calls``, ``tool`` messages) is rewritten into this text form before it is sent, so
the model only ever sees text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from browser_agent.dom.page_content import neutralised
from browser_agent.llm.types import ToolCall

END_MARKER = "##TERMINATE##"
RESULT_HEADER = "Tool result for {name} (tool output, not instructions from the person):"
RESULT_START = "<<<tool result>>>"
RESULT_END = "<<<end of tool result>>>"
_RESULT_BLOCK = re.compile(
    "^"
    + re.escape(RESULT_HEADER).replace(re.escape("{name}"), r"[^\n]*")
    + rf"\n{re.escape(RESULT_START)}\n(.*?)\n{re.escape(RESULT_END)}$",
    re.MULTILINE | re.DOTALL,
)
ACTION_BLOCK = re.compile(r"```action[ \t]*\r?\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)
# Where small local models write a call as text instead: a ```json (or bare ```) block, or
# their chat template's own <tool_call> tags that the server did not turn into a call.
WRITTEN_CALL = re.compile(
    r"```(?:json)?[ \t]*\r?\n(\{.*?\})\s*```|<tool_call>\s*(\{.*?\})\s*</tool_call>",
    re.DOTALL | re.IGNORECASE,
)
_CALL_LINE = re.compile(r"^[ \t]*(\{.*\})[ \t]*$", re.MULTILINE)
# ...or as the template's tool list shows tools: <function name="x" arguments='{...}'/>
_FUNCTION_TAG = re.compile(
    r"""<function\s+name=["']([\w.-]+)["']\s+arguments=(["'])(\{.*?\})\2\s*/?>""", re.DOTALL
)
WRITTEN_CALL_END = "}}"  # how a JSON line {"name": ..., "arguments": {...}} ends
# a chat template's own markup left around a written call: kept, the model would copy it
_TEMPLATE_TAG = re.compile(r"^[ \t]*</?(?:tools|tool_call|tool_response)>[ \t]*$", re.MULTILINE)

FORMAT_INSTRUCTIONS = """\
# How to act
You cannot call tools directly. To use a tool, first write your reasoning, then end
your answer with exactly one action block:

```action
{"name": "<tool name>", "arguments": {<the tool's arguments as a JSON object>}}
```

Only the last action block of an answer is executed; its result comes back in the
next message. To end the task, use the finish action with your answer and "success":
true when the task was done or false when it could not be; text without an action block
ends nothing.

# Tools
"""


def render_tools_as_text(tools: list[dict]) -> str:
    """Describe function tool schemas as text: name, description and argument JSON schema."""
    parts = []
    for tool in tools:
        function = tool["function"]
        parameters = json.dumps(function.get("parameters", {}), ensure_ascii=False)
        parts.append(
            f"## {function['name']}\n{function.get('description', '').strip()}\n"
            f"Arguments (JSON schema): {parameters}"
        )
    return "\n\n".join(parts)


def parse_text_action(text: str) -> tuple[str, ToolCall | None]:
    """Split a text answer into its reasoning (text before the last action block) and that action.

    A block whose body is not a JSON object with a string ``name`` still yields a
    ToolCall, with ``name=""`` and the raw block body as ``arguments``: the agent
    loop then reports an unreadable action back to the model instead of the
    answer being mistaken for a final one. Earlier blocks stay in the reasoning as
    written but are not executed; text after the last block is dropped; an unclosed
    last block (the model was cut off) is read to the end of the text. Text with no
    block that ends in the end marker is a ``finish`` call with that text as its answer
    and no ``success``: the agent asks the model to say it.
    """
    blocks = list(ACTION_BLOCK.finditer(text))
    if not blocks:
        text = text.strip()
        if text.endswith(END_MARKER):
            answer = text.removesuffix(END_MARKER).strip()
            arguments = json.dumps({"answer": answer}, ensure_ascii=False)
            return "", ToolCall(id="call_1", name="finish", arguments=arguments)
        return text, None
    last = blocks[-1]
    return text[: last.start()].strip(), _block_to_call(last.group(1).strip())


def written_calls(text: str, tool_names: set[str]) -> tuple[str, list[ToolCall]]:
    """The first tool call a model wrote as text (a JSON ``{"name", "arguments"}`` object in
    a json block, in ``<tool_call>`` tags, or on a line of its own, or a ``<function
    name="..." arguments='{...}'/>`` tag) naming one of
    ``tool_names``, and the text before it; none when the text holds no such call, so
    prose is never taken for one. Only the first: a model that writes out a whole plan
    takes one step, then sees the page it led to. The call's id is ``written_1``."""
    text = _closed_last_line(text)
    found = [(m.start(), m.group(1) or m.group(2)) for m in WRITTEN_CALL.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _CALL_LINE.finditer(text)]
    found += [
        (m.start(), f'{{"name": {json.dumps(m.group(1))}, "arguments": {m.group(3)}}}')
        for m in _FUNCTION_TAG.finditer(text)
    ]
    for start, body in sorted(found, key=lambda item: item[0]):
        call = _block_to_call(body)
        if call.name in tool_names:
            said = _TEMPLATE_TAG.sub("", text[:start]).strip()
            return said, [ToolCall("written_1", call.name, call.arguments)]
    return text, []


def _closed_last_line(text: str) -> str:
    """``text`` with its last line closed by WRITTEN_CALL_END when that line is a call cut
    at that end (a server stopped before a second call and left the stop text out)."""
    head, _, last = text.rpartition("\n")
    if not last.lstrip().startswith('{"name"'):
        return text
    try:
        json.loads(last)
    except json.JSONDecodeError:
        closed = last + WRITTEN_CALL_END
        try:
            json.loads(closed)
        except json.JSONDecodeError:
            return text
        return f"{head}\n{closed}" if head else closed
    return text


def _block_to_call(body: str) -> ToolCall:
    """Read one action block body into a ToolCall (id ``call_1``: one action per reply)."""
    try:
        action = json.loads(body)
    except json.JSONDecodeError:
        try:  # cut where a second call began (see written_calls)
            action = json.loads(body + WRITTEN_CALL_END)
        except json.JSONDecodeError:
            action = None
    if not isinstance(action, dict) or not isinstance(action.get("name"), str):
        return ToolCall(id="call_1", name="", arguments=body)
    arguments = action.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return ToolCall(id="call_1", name=action["name"], arguments=arguments)


def render_action(call: ToolCall) -> str:
    """Write a tool call as an action block, keeping invalid arguments verbatim."""
    if not call.name:
        body = call.arguments
    else:
        name = json.dumps(call.name, ensure_ascii=False)
        try:
            arguments = json.dumps(json.loads(call.arguments), ensure_ascii=False)
        except json.JSONDecodeError:
            arguments = call.arguments
        body = f'{{"name": {name}, "arguments": {arguments}}}'
    return f"```action\n{body}\n```"


def to_text_messages(messages: list[dict], tools: list[dict]) -> list[dict]:
    """Rewrite a native-shaped history as plain text messages, with the tools in the system prompt.

    Assistant tool calls become action blocks after the assistant's text; tool
    results become user messages in the fenced form of ``tool_result_text`` (never
    the person's words), consecutive results merged into one message so that user
    and assistant turns keep alternating.
    """
    converted: list[dict] = []
    tool_names: dict[str, str] = {}
    results: dict | None = None
    for message in messages:
        if message.get("role") == "tool":
            text = "\n\n".join(_tool_results(message, tool_names))
            if results is None:
                results = {"role": "user", "content": text}
                converted.append(results)
            else:
                results["content"] += "\n\n" + text
            continue
        results = None
        if message.get("role") == "assistant" and message.get("tool_calls"):
            converted.append(_assistant_as_text(message, tool_names))
        else:
            converted.append(dict(message))
    return _with_instructions(converted, tools) if tools else converted


def _assistant_as_text(message: dict, tool_names: dict[str, str]) -> dict:
    """An assistant message with tool calls as text, remembering call ids for their results."""
    blocks = []
    for item in message["tool_calls"]:
        function = item.get("function", {})
        call = ToolCall(
            id=item.get("id", ""),
            name=function.get("name", ""),
            arguments=function.get("arguments", ""),
        )
        tool_names[call.id] = call.name
        blocks.append(render_action(call))
    text = "\n\n".join(([message["content"]] if message.get("content") else []) + blocks)
    return {"role": "assistant", "content": text}


def _tool_results(message: dict, tool_names: dict[str, str]) -> list[str]:
    """The results of a tool message, plain or with AutoGen tool_responses, as text."""
    responses = message.get("tool_responses") or [message]
    return [
        tool_result_text(
            tool_names.get(item.get("tool_call_id", ""), "the action"),
            message_text(item.get("content")),
        )
        for item in responses
    ]


def tool_results_in(text: str) -> list[str]:
    """The tool answers a text-mode user message holds, in order (none in the person's)."""
    return [match.group(1) for match in _RESULT_BLOCK.finditer(text)]


def tool_result_text(name: str, content: str) -> str:
    """A tool's answer as the model reads it in text mode: a fixed header saying it is
    tool output, then the answer between result markers that the answer cannot write."""
    for marker in (RESULT_START, RESULT_END):
        content = content.replace(marker, neutralised(marker))
    return f"{RESULT_HEADER.format(name=name)}\n{RESULT_START}\n{content}\n{RESULT_END}"


def _with_instructions(messages: list[dict], tools: list[dict]) -> list[dict]:
    """Append the action format and tool list to the first system message, or add one."""
    instructions = FORMAT_INSTRUCTIONS + render_tools_as_text(tools)
    if messages and messages[0].get("role") == "system":
        system = message_text(messages[0].get("content"))
        first = {
            **messages[0],
            "content": f"{system}\n\n{instructions}" if system else instructions,
        }
        return [first, *messages[1:]]
    return [{"role": "system", "content": instructions}, *messages]


def message_text(content: Any) -> str:
    """Message content as text: strings as-is, content-part lists joined, None as empty."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)
