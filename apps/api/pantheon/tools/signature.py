"""A tool's JSON schema from its Python signature, so a tool is just a typed async function.

Every parameter becomes a field of a pydantic model (``Annotated[..., Field(...)]`` carries
descriptions and bounds); a parameter annotated ``ToolScope`` is injected by the registry
and left out of the schema. Mistakes in a tool's definition are programming errors and
raise ``TypeError`` when it is registered, never when a model calls it.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from pantheon.engine.tooling import ToolScope


@dataclass(frozen=True, slots=True)
class Signature:
    """What the registry needs to call a function: its argument model, its JSON schema and
    the name of the parameter that receives the caller's scope, if any."""

    arguments: type[BaseModel]
    schema: dict[str, Any]
    scope_param: str | None


def derive(name: str, fn: Callable[..., Any]) -> Signature:
    """Build the argument model and schema of ``fn``; ``TypeError`` naming the parameter
    when a parameter is positional-only, variadic or unannotated."""
    hints = typing.get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    scope_param: str | None = None
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"tool {name}: parameter {param.name!r} must be a plain parameter")
        if param.name not in hints:
            raise TypeError(f"tool {name}: parameter {param.name!r} needs a type annotation")
        annotation = hints[param.name]
        if annotation is ToolScope:
            scope_param = param.name
            continue
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model: type[BaseModel] = create_model(
        f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return Signature(arguments=model, schema=schema, scope_param=scope_param)
