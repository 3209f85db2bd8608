"""Tool schemas built by pydantic from signatures: the same names, descriptions, types,
defaults and required parameters the model saw when they were written by hand
(tests/fixtures/tool_schemas.json holds those)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from browser_agent.memory.manager import TOOL_FUNCTIONS
from browser_agent.planner.skill_tools import _as_tool
from browser_agent.skills.primitive import PRIMITIVES
from browser_agent.tools import tool_schema

WRITTEN_BY_HAND = json.loads(
    (Path(__file__).parent / "fixtures" / "tool_schemas.json").read_text(encoding="utf-8")
)


def as_compared(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema without what pydantic adds that a function tool reads the same: no
    ``additionalProperties: false`` (a call's arguments are checked against the signature
    anyway) and an empty ``required`` list written out."""
    parameters = dict(schema["function"]["parameters"])
    parameters.pop("additionalProperties", None)
    parameters.setdefault("required", [])
    return {**schema, "function": {**schema["function"], "parameters": parameters}}


def test_every_tool_schema_matches_the_one_written_by_hand() -> None:
    functions = {**PRIMITIVES, **TOOL_FUNCTIONS}
    assert set(functions) == set(WRITTEN_BY_HAND)
    for name, fn in functions.items():
        assert as_compared(tool_schema(fn)) == WRITTEN_BY_HAND[name], name


def test_a_harvested_skill_as_a_planner_tool_keeps_its_schema() -> None:
    async def search_products(
        query: Annotated[str, "The words to search for."],
        quantity: Annotated[int, "How many to add."] = 1,
    ) -> str:
        """Search the shop and add the first result to the cart."""
        return ""

    skill = SimpleNamespace(name="search_products", status="healthy")
    tool = _as_tool(None, skill, search_products)  # type: ignore[arg-type]

    schema = tool_schema(tool)
    assert schema == tool_schema(search_products)
    parameters = schema["function"]["parameters"]
    assert parameters["required"] == ["query"]
    assert parameters["properties"]["quantity"] == {
        "type": "integer",
        "description": "How many to add.",
        "default": 1,
    }


class Address(TypedDict):
    """Where to send it (a docstring the schema leaves out)."""

    street: Annotated[str, "Street and number."]
    city: NotRequired[Annotated[str, "The city, when not the default one."]]


def test_nested_types_are_inlined_and_described() -> None:
    def ship(
        to: Annotated[list[Address], "The addresses, in order."],
        speed: Annotated[Literal["slow", "fast"], "How fast."] = "slow",
    ) -> str:
        """Ship an order."""
        return ""

    parameters = tool_schema(ship)["function"]["parameters"]

    assert "$defs" not in json.dumps(parameters) and "$ref" not in json.dumps(parameters)
    assert parameters["properties"]["to"] == {
        "type": "array",
        "description": "The addresses, in order.",
        "items": {
            "type": "object",
            "properties": {
                "street": {"type": "string", "description": "Street and number."},
                "city": {"type": "string", "description": "The city, when not the default one."},
            },
            "required": ["street"],
        },
    }
    assert parameters["properties"]["speed"] == {
        "type": "string",
        "enum": ["slow", "fast"],
        "description": "How fast.",
        "default": "slow",
    }
