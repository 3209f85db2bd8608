"""Small local models often write a tool call as text (a json block, their template's
<tool_call> tags) instead of the server's tool_calls or the action block: the real client
reads such a call when it names an offered tool, over both protocols, and never takes prose
or page data for one."""

from __future__ import annotations

import pytest

from browser_agent.llm.openai_client import OpenAIClient
from browser_agent.llm.text_actions import parse_text_action, written_calls
from browser_agent.llm.types import LLMReply, ToolCall
from browser_agent.testing.openai_server import start_test_llm_server

OPEN = {
    "type": "function",
    "function": {"name": "open_url", "parameters": {"type": "object", "properties": {}}},
}
JSON_BLOCK = (
    'I will open the shop.\n```json\n{\n  "name": "open_url",\n  "arguments": {\n'
    '    "url": "http://127.0.0.1:8811/"\n  }\n}\n```'
)
TAGS = '<tool_call>\n{"name": "open_url", "arguments": {"url": "http://127.0.0.1:8811/"}}\n</tool_call>'

# the 1.5B model's own shape with native tools: its template's tool list, one tag a call
FUNCTION_TAGS = (
    "<tools>\n"
    '  <function name="open_url" arguments=\'{"url": "http://127.0.0.1:8811/"}\'/>\n'
    '  <function name="click" arguments=\'{"selector": "[mmid=\'13\']"}\'/>\n'
    "</tools>"
)


@pytest.mark.parametrize("text_actions", [False, True])
@pytest.mark.parametrize("written", [JSON_BLOCK, TAGS, FUNCTION_TAGS])
async def test_a_call_written_as_text_is_read_as_a_call(written: str, text_actions: bool) -> None:
    with start_test_llm_server(lambda _m, _t: LLMReply(written)) as server:
        client = OpenAIClient("test-model", base_url=server.base_url, text_actions=text_actions)
        reply = await client.complete([{"role": "user", "content": "open the shop"}], [OPEN])
        await client.aclose()
    assert [(call.name, call.arguments) for call in reply.tool_calls] == [
        ("open_url", '{"url": "http://127.0.0.1:8811/"}')
    ]
    assert reply.content in (None, "I will open the shop.")


def test_prose_and_page_data_are_not_calls() -> None:
    assert written_calls('The product {"name": "Mud Dog"} costs $3.', {"finish"})[1] == []
    data = '```json\n{"name": "Mud Dog", "price": 3}\n```'
    assert written_calls(data, {"finish"}) == (data, [])  # names no offered tool
    unknown = '```json\n{"name": "delete_everything", "arguments": {}}\n```'
    assert written_calls(unknown, {"open_url"})[1] == []
    tag = '<function name="finish" arguments=\'{"answer": "It\'s done"}\'/>'
    assert written_calls(tag, {"open_url"})[1] == []  # a tool it was not offered
    assert written_calls(tag, {"finish"})[1] == [
        ToolCall("written_1", "finish", '{"answer": "It\'s done"}')
    ]
    whole = '{"name": "finish", "arguments": {"answer": "Done", "success": true}}'
    assert written_calls(whole, {"finish"}) == (
        "",
        [ToolCall("written_1", "finish", '{"answer": "Done", "success": true}')],
    )


async def test_a_native_call_is_not_read_twice() -> None:
    def both(_m: list[dict], _t: list[dict]) -> LLMReply:
        return LLMReply(JSON_BLOCK, [ToolCall("call_9", "open_url", '{"url": "http://x/"}')])

    with start_test_llm_server(both) as server:
        client = OpenAIClient("test-model", base_url=server.base_url)
        reply = await client.complete([{"role": "user", "content": "go"}], [OPEN])
        await client.aclose()
    assert [call.id for call in reply.tool_calls] == ["call_9"]


def test_of_a_plan_written_out_only_the_first_step_is_taken() -> None:
    plan = (
        '<tools>\n{"name": "open_url", "arguments": {"url": "http://127.0.0.1:8811/"}}\n'
        '{"name": "get_dom", "arguments": {"content_type": "all_fields"}}\n'
        '{"name": "click", "arguments": {"selector": "[mmid=\'14\']"}}\n{"name": "get_d'
    )
    said, calls = written_calls(plan, {"open_url", "get_dom", "click"})
    assert said == ""  # the template's own tag is not kept for the model to copy
    assert calls == [ToolCall("written_1", "open_url", '{"url": "http://127.0.0.1:8811/"}')]


def test_a_call_cut_where_a_second_began_is_closed_again() -> None:
    """The server stopped at the stop text after the first call and left that text out."""
    cut = '<tools>\n{"name": "click", "arguments": {"selector": "[mmid=\'14\']"'
    said, calls = written_calls(cut, {"click"})
    assert said == ""
    assert calls == [ToolCall("written_1", "click", '{"selector": "[mmid=\'14\']"}')]
    assert written_calls('{"name": "click", "arguments": {"selector": "[mm', {"click"})[1] == []


def test_an_action_block_cut_where_a_second_call_began_is_closed_again() -> None:
    cut = 'Opening.\n```action\n{"name": "open_url", "arguments": {"url": "http://x/"'
    assert parse_text_action(cut) == (
        "Opening.",
        ToolCall("call_1", "open_url", '{"url": "http://x/"}'),
    )
