"""A ``ToolRunner`` with no tools: what the engine uses when the service offers none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pantheon.engine.tooling import ToolResult, ToolScope
from pantheon.llm.types import ToolDefinition


class NoTools:
    """Offers nothing; a call (a model inventing a tool) gets ``ok=False``."""

    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        return []

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        return ToolResult(False, f"no such tool: {name}")

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        return False

    def withheld(self, name: str) -> str | None:
        return None
