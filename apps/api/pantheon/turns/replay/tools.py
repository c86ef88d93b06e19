"""A tool runner that answers from a recorded turn and runs only what it has no record of.

A call is matched by its speaker, tool name and arguments (as an object, key order
ignored); calls with the same match take the recorded results in the order they ran. A
match returns the recorded result and duration without running anything; anything else
runs on the real runner. Definitions and approval rules come from the real runner
(docs/replay.md says what that means for a tool server that changed since).
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pantheon.engine.events import ToolCallRecordEvent
from pantheon.engine.tool_round import parse_arguments
from pantheon.engine.tooling import ToolResult, ToolRunner, ToolScope
from pantheon.llm.types import ToolDefinition

_Key = tuple[str, str, str]


def _key(agent_key: str, name: str, arguments: Mapping[str, Any]) -> _Key:
    return agent_key, name, json.dumps(arguments, sort_keys=True, ensure_ascii=False)


class RecordedTools:
    """``ToolRunner`` over a record, falling through to ``real``."""

    def __init__(self, real: ToolRunner, records: Iterable[ToolCallRecordEvent]) -> None:
        self.real = real
        self._results: defaultdict[_Key, deque[ToolResult]] = defaultdict(deque)
        for record in records:
            if record.executed:  # refused or held calls never reached a runner
                arguments = parse_arguments(record.arguments).arguments
                result = ToolResult(record.ok, record.result, record.duration_ms)
                self._results[_key(record.agent_key, record.name, arguments)].append(result)
        self.served = 0
        self.ran = 0

    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        return await self.real.definitions(allowed, scope)

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        return self.real.needs_approval(allowed, name)

    def withheld(self, name: str) -> str | None:
        return self.real.withheld(name)

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        """The recorded result, or the real runner's when there is none."""
        pool = self._results[_key(scope.agent_key, name, arguments)]
        if pool:
            self.served += 1
            return pool.popleft()
        self.ran += 1
        return await self.real.call(name, arguments, scope)
