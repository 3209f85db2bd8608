"""Tool schemas for the LLM, derived from a skill's signature and docstring."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import (
    Annotated,
    Any,
    Literal,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)


def tool_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The OpenAI function-tool schema of ``fn``: Annotated strings describe parameters."""
    hints = get_type_hints(fn, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        schema = json_schema(hints.get(name, str))
        if param.default is inspect.Parameter.empty:
            required.append(name)
        else:
            schema["default"] = param.default
        properties[name] = schema
    return {
        "type": "function",
        "function": {
            "name": fn.__name__,
            "description": " ".join((inspect.getdoc(fn) or fn.__name__).split()),
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def json_schema(hint: Any) -> dict[str, Any]:
    """JSON schema of one type hint (scalars, Literal, list, TypedDict, Optional)."""
    if get_origin(hint) is Annotated:
        base, *meta = get_args(hint)
        schema = json_schema(base)
        described = [m for m in meta if isinstance(m, str)]
        if described:
            schema["description"] = described[0]
        return schema
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = get_origin(hint)
    if origin is Literal:
        values = list(get_args(hint))
        return {"type": _SCALARS[type(values[0])], "enum": values}
    if origin is list:
        (item,) = get_args(hint) or (str,)
        return {"type": "array", "items": json_schema(item)}
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return json_schema(options[0]) if len(options) == 1 else {}
    if is_typeddict(hint):
        fields = get_type_hints(hint, include_extras=True)
        return {
            "type": "object",
            "properties": {key: json_schema(value) for key, value in fields.items()},
            "required": sorted(hint.__required_keys__),
        }
    raise TypeError(f"No JSON schema for parameter type {hint!r}")
