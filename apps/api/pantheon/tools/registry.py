"""The registry of in-process tools: a typed async function becomes a tool a model can call.

``@tool`` turns a function into a ``ToolSpec`` (name, description from the docstring,
schema from the signature); ``ToolRegistry`` holds specs and runs calls. The registry is an
instance built at startup (``ToolRegistry.with_builtins()``), so tools that need app
services are added from a factory closure after import:

    def knowledge_tool(db: Database) -> ToolSpec:
        @tool
        async def search_knowledge(query: str, scope: ToolScope) -> str:
            \"\"\"Search the documents of this agent and room.\"\"\"
            ...
        return search_knowledge

    registry.add(knowledge_tool(db))

A call never raises: bad arguments, ``ToolError`` and unexpected exceptions all become
``ok=False`` results; every result is capped at ``max_result_chars``.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from pantheon.engine.tooling import ToolError, ToolResult, ToolScope
from pantheon.llm.types import ToolDefinition
from pantheon.tools.names import NAME_PATTERN, is_model_name
from pantheon.tools.results import failure, success
from pantheon.tools.signature import derive

log = logging.getLogger(__name__)

ToolFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One in-process tool, ready to register."""

    name: str
    description: str
    parameters: dict[str, Any]
    arguments: type[BaseModel]
    scope_param: str | None
    fn: ToolFunction

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.parameters)


@overload
def tool(fn: ToolFunction, /) -> ToolSpec: ...
@overload
def tool(*, name: str | None = None) -> Callable[[ToolFunction], ToolSpec]: ...
def tool(
    fn: ToolFunction | None = None, /, *, name: str | None = None
) -> ToolSpec | Callable[[ToolFunction], ToolSpec]:
    """Make a tool of an async function: ``@tool`` or ``@tool(name="other_name")``.

    ``TypeError``/``ValueError`` at decoration for a sync function, a missing docstring, a
    name outside ``^[A-Za-z0-9_-]{1,64}$`` or a parameter the schema cannot describe."""

    def build(func: ToolFunction) -> ToolSpec:
        tool_name = name or func.__name__
        if not is_model_name(tool_name):
            raise ValueError(f"tool name {tool_name!r} must match {NAME_PATTERN}")
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {tool_name}: must be an async function")
        description = inspect.getdoc(func)
        if not description:
            raise ValueError(f"tool {tool_name}: needs a docstring (the model reads it)")
        sig = derive(tool_name, func)
        return ToolSpec(tool_name, description, sig.schema, sig.arguments, sig.scope_param, func)

    return build if fn is None else build(fn)


class ToolRegistry:
    """Name -> ``ToolSpec``; adding the same name twice is a programming error."""

    def __init__(self, specs: Iterable[ToolSpec] = (), *, max_result_chars: int = 4000) -> None:
        self.max_result_chars = max_result_chars
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.add(spec)

    @classmethod
    def with_builtins(cls, *, max_result_chars: int = 4000) -> ToolRegistry:
        """A registry holding the built-in tools (``calculator``, ``current_time``)."""
        from pantheon.tools.builtins import BUILTINS

        return cls(BUILTINS, max_result_chars=max_result_chars)

    def add(self, spec: ToolSpec) -> ToolSpec:
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name!r} is already registered")
        self._specs[spec.name] = spec
        return spec

    def register(self, fn: ToolFunction) -> ToolSpec:
        """``@registry.register``: ``tool(fn)`` then ``add``."""
        return self.add(tool(fn))

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def names(self) -> list[str]:
        return sorted(self._specs)

    def specs(self) -> list[ToolSpec]:
        return [self._specs[n] for n in self.names()]

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        """Validate ``arguments`` and run the tool; every failure is an ``ok=False`` result."""
        limit = self.max_result_chars
        spec = self._specs.get(name)
        if spec is None:
            return failure(f"unknown tool {name!r}; available: {', '.join(self.names())}", limit)
        try:
            parsed = spec.arguments.model_validate(dict(arguments))
        except ValidationError as exc:
            return failure(f"invalid arguments for {name}: {describe_errors(exc)}", limit)
        kwargs = {field: getattr(parsed, field) for field in type(parsed).model_fields}
        if spec.scope_param is not None:
            kwargs[spec.scope_param] = scope
        try:
            value = await spec.fn(**kwargs)
            return success(render(value), limit)
        except ToolError as exc:
            return failure(str(exc) or f"{name} failed", limit)
        except Exception:
            log.exception("tool %s failed", name)
            return failure(f"{name} failed with an internal error", limit)


def render(value: object) -> str:
    """A tool's return value as the text a model reads: strings as they are, anything else
    as JSON (``TypeError`` when it cannot be)."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value), ensure_ascii=False)


def describe_errors(exc: ValidationError) -> str:
    """Pydantic's errors as one line: ``field: message; other: message``."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
