"""A small real ``ToolRunner`` for tests: a calculator plus tools that misbehave on purpose.

Tools are async functions of the arguments; ``ToolError`` and other exceptions propagate
to the engine (it must turn them into error results). ``calls`` logs what ran.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI

from pantheon.engine.tooling import ToolError, ToolResult, ToolRunner, ToolScope
from pantheon.llm.providers.scripted import ScriptedReply, tool_call
from pantheon.llm.types import LLMRequest, ToolDefinition

Tool = Callable[[Mapping[str, Any]], Awaitable[str]]
_PRODUCT = re.compile(r"^\s*(-?\d+)\s*([*+-])\s*(-?\d+)\s*$")


def use_tools(app: FastAPI, runner: ToolRunner) -> None:
    """Give the running ``app`` this tool runner, for agent validation and turns alike."""
    services = app.state.services
    turns = dataclasses.replace(services.turns, tools=runner)
    app.state.services = dataclasses.replace(services, tools=runner, turns=turns)


async def calculator(args: Mapping[str, Any]) -> str:
    match = _PRODUCT.match(str(args.get("expression", "")))
    if match is None:
        raise ToolError("expected 'a * b', 'a + b' or 'a - b'")
    a, op, b = int(match[1]), match[2], int(match[3])
    return str(a * b if op == "*" else a + b if op == "+" else a - b)


async def hang(args: Mapping[str, Any]) -> str:
    await asyncio.Event().wait()
    return "never"


async def boom(args: Mapping[str, Any]) -> str:
    raise RuntimeError("secret internals")


class TestTools:
    """Offers the tools it was built with, by name; ``scopes`` records who called."""

    __test__ = False

    def __init__(self, tools: Mapping[str, Tool] | None = None) -> None:
        self.tools: dict[str, Tool] = dict(tools or {"calculator": calculator})
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.scopes: list[ToolScope] = []

    def validate(self, entries: Sequence[str]) -> None:
        """What agent create/patch asks of the app's runner: unknown names are refused (a
        trailing ``!``, needs approval, is accepted)."""
        unknown = [e for e in entries if e.removesuffix("!") not in self.tools]
        if unknown:
            raise ValueError(f"unknown tool(s) {unknown}; available: {sorted(self.tools)}")

    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        schema = {"type": "object", "properties": {"expression": {"type": "string"}}}
        names = [entry.removesuffix("!") for entry in allowed]
        return [ToolDefinition(n, f"the {n} tool", schema) for n in names if n in self.tools]

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        return f"{name}!" in allowed

    def withheld(self, name: str) -> str | None:
        return None

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        self.calls.append((name, dict(arguments)))
        self.scopes.append(scope)
        if name not in self.tools:
            return ToolResult(False, f"no such tool: {name}")
        return ToolResult(True, await self.tools[name](arguments))


def calculating_agent(request: LLMRequest) -> ScriptedReply:
    """A function model: with a calculator offered it asks for 17*23 once, then answers
    with what the tool returned."""
    last = request.messages[-1]
    if last.role == "tool":
        return ScriptedReply(f"17*23 is {last.content}.")
    if any(t.name == "calculator" for t in request.tools):
        return ScriptedReply("Computing.", (tool_call("calculator", {"expression": "17*23"}),))
    return ScriptedReply("No calculator.")
