"""Tools from Python callables: a name, a description and a JSON Schema for the
arguments, taken from the function's signature and type hints (or given explicitly, or
from a pydantic model when pydantic is installed)."""

from __future__ import annotations

import inspect
import sys
import typing
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from agentloop._native import LoopError

Schema = Dict[str, Any]

_SCALARS: Dict[Any, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
}


def _hint_schema(hint: Any, where: str) -> Schema:
    """The JSON Schema of one type hint."""
    if hint is inspect.Parameter.empty or hint is Any or hint is object:
        return {}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Union or (sys.version_info >= (3, 10) and _is_union_type(hint)):
        return {"anyOf": [_hint_schema(a, where) for a in args]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if hint in (list, tuple) or origin in (list, tuple, typing.Sequence, _abc_sequence()):
        items = [a for a in args if a is not Ellipsis]
        schema: Schema = {"type": "array"}
        if len(items) == 1:
            schema["items"] = _hint_schema(items[0], where)
        return schema
    if hint is dict or origin in (dict, typing.Mapping, _abc_mapping()):
        schema = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _hint_schema(args[1], where)
        return schema
    pydantic = _pydantic_schema(hint)
    if pydantic is not None:
        return pydantic
    raise LoopError(
        f"{where}: the type hint {hint!r} has no JSON Schema here; "
        "give the tool's schema explicitly (tool(f, schema=...))"
    )


def _is_union_type(hint: Any) -> bool:
    import types

    return isinstance(hint, types.UnionType)  # type: ignore[attr-defined,unused-ignore]


def _abc_sequence() -> Any:
    import collections.abc

    return collections.abc.Sequence


def _abc_mapping() -> Any:
    import collections.abc

    return collections.abc.Mapping


def _pydantic_model(hint: Any) -> bool:
    """Whether `hint` is a pydantic model class (pydantic is optional)."""
    model = sys.modules.get("pydantic")
    base = getattr(model, "BaseModel", None) if model else None
    return base is not None and isinstance(hint, type) and issubclass(hint, base)


def _pydantic_schema(hint: Any) -> Optional[Schema]:
    if _pydantic_model(hint):
        schema: Schema = hint.model_json_schema()
        return schema
    return None


def schema_of(function: Callable[..., Any], name: str) -> Tuple[Schema, Optional[type]]:
    """The argument schema of `function` from its signature, and the pydantic model its
    one parameter is, if it is one (the arguments are then validated into it)."""
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # a hint naming what the function's module cannot resolve
        hints = {}
    params = [
        p
        for p in signature.parameters.values()
        if p.kind not in (inspect.Parameter.VAR_POSITIONAL,)
    ]
    named = [p for p in params if p.kind != inspect.Parameter.VAR_KEYWORD]
    if len(named) == 1 and _pydantic_model(hints.get(named[0].name)):
        model = hints[named[0].name]
        return model.model_json_schema(), model
    properties: Schema = {}
    required: List[str] = []
    for p in named:
        where = f"tool {name!r}, parameter {p.name!r}"
        properties[p.name] = _hint_schema(hints.get(p.name, p.annotation), where)
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
    schema: Schema = {"type": "object"}
    if properties:
        schema["properties"] = properties
    if required:
        schema["required"] = required
    if named and len(named) == len(params):
        schema["additionalProperties"] = False
    return schema, None


@dataclass(frozen=True)
class Tool:
    """A tool the loop may call: `function(**arguments)` on arguments that passed
    `schema`. An exception it raises is the call's `ok:false` record."""

    name: str
    description: str
    schema: Mapping[str, Any]
    function: Callable[..., Any]
    idempotent: bool = False


def tool(
    function: Callable[..., Any],
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    schema: Optional[Mapping[str, Any]] = None,
    idempotent: bool = False,
) -> Tool:
    """A tool of `function`: its name, description (the docstring) and schema (from the
    type hints) unless given."""
    tool_name = name if name is not None else function.__name__
    text = description if description is not None else (inspect.getdoc(function) or "")
    if schema is not None:
        return Tool(tool_name, text, schema, function, idempotent)
    derived, model = schema_of(function, tool_name)
    call = function
    if model is not None:

        def call(**arguments: Any) -> Any:
            return function(model(**arguments))

    return Tool(tool_name, text, derived, call, idempotent)


def as_tool(item: Union[Tool, Callable[..., Any]]) -> Tool:
    """A tool given as a `Tool` or as a plain callable."""
    return item if isinstance(item, Tool) else tool(item)
