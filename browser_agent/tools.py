"""Tool schemas for the LLM, derived from a skill's signature and docstring by pydantic.

A parameter is described by a string in its ``Annotated`` hint (``Annotated[str, "The
address."]``), as primitives and harvested skills write them; pydantic reads descriptions
only from ``Field``, so those strings become ``Field(description=...)`` first, also inside
lists and TypedDicts.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    NotRequired,
    Required,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import Field, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from typing_extensions import TypedDict

if TYPE_CHECKING:
    from pydantic_core import core_schema  # pydantic's own: only named in a signature


def tool_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The OpenAI function-tool schema of ``fn``: Annotated strings describe parameters."""
    parameters = TypeAdapter(_described_stub(fn)).json_schema(schema_generator=_ToolJsonSchema)
    return {
        "type": "function",
        "function": {
            "name": fn.__name__,
            "description": " ".join((inspect.getdoc(fn) or fn.__name__).split()),
            "parameters": _inlined(parameters, parameters.pop("$defs", {})),
        },
    }


class _ToolJsonSchema(GenerateJsonSchema):
    """Pydantic's JSON schema without the titles it makes up from names (the model sees
    the names already) nor the docstrings of TypedDicts."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        found = super().typed_dict_schema(schema)
        found.pop("title", None)
        found.pop("description", None)
        return found


def _described_stub(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A function with ``fn``'s signature whose hints carry their descriptions as pydantic
    Fields (pydantic reads a callable's parameters from these)."""
    hints = get_type_hints(fn, include_extras=True)
    parameters = [
        param.replace(annotation=_described(hints.get(name, str)))
        for name, param in inspect.signature(fn).parameters.items()
    ]

    def stub(*args: Any, **kwargs: Any) -> None:
        """The signature of a tool, for its schema only."""

    stub.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    stub.__annotations__ = {param.name: param.annotation for param in parameters}
    return stub


def _described(hint: Any) -> Any:
    """``hint`` with each string of its Annotated metadata as a Field description."""
    origin = get_origin(hint)
    if origin is Annotated:
        base, *meta = get_args(hint)
        fields = [Field(description=m) if isinstance(m, str) else m for m in meta]
        return Annotated[(_described(base), *fields)]
    if origin is list:
        (item,) = get_args(hint) or (str,)
        return list[_described(item)]
    if is_typeddict(hint):
        fields = get_type_hints(hint, include_extras=True)
        return TypedDict(  # typing_extensions': pydantic refuses typing's on Python 3.11
            hint.__name__,
            {key: _field(value, key in hint.__required_keys__) for key, value in fields.items()},
        )
    return hint


def _field(hint: Any, required: bool) -> Any:
    """A TypedDict field's hint, described, marked Required or NotRequired: as its own
    wrapper says (which Python 3.11 may miss in ``__required_keys__`` of a module with
    postponed annotations), else as the TypedDict's keys say."""
    origin = get_origin(hint)
    if origin in (Required, NotRequired):
        required, hint = origin is Required, get_args(hint)[0]
    return (Required if required else NotRequired)[_described(hint)]


def _inlined(schema: Any, defs: dict[str, Any]) -> Any:
    """``schema`` with each ``$ref`` to its ``$defs`` replaced by the definition itself:
    tool parameters read as one self-contained object."""
    if isinstance(schema, list):
        return [_inlined(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: _inlined(value, defs) for key, value in schema.items() if key != "$ref"}
    if "$ref" in schema:  # a description beside the reference stays
        return {**_inlined(defs[schema["$ref"].rsplit("/", 1)[1]], defs), **found}
    return found
