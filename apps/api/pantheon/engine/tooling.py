"""What the engine needs from tools, and nothing more: definitions to offer a model and a
way to run one call.

The engine never imports the tool registry or MCP clients; the service layer hands it an
object that satisfies ``ToolRunner`` (``pantheon.tools`` provides the real one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pantheon.llm.types import ToolDefinition


class ToolError(Exception):
    """Raised by a tool for a failure the model should read (``str(exc)`` is shown to it);
    any other exception from a tool is reported to the model as a generic failure."""


@dataclass(frozen=True, slots=True)
class ToolScope:
    """Who is calling: tools that read a user's data (knowledge) are scoped by these."""

    owner_id: str
    turn_id: str
    agent_id: str
    agent_key: str
    room_id: str | None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One finished call: ``content`` is what the model reads back (text, already capped).
    ``duration_ms``: how long it took, when the runner knows better than the engine's
    clock (a replay reports the recorded duration); ``None``: the engine measures it."""

    ok: bool
    content: str
    duration_ms: int | None = None


class ToolRunner(Protocol):
    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        """The model-visible tools for an agent's ``tools`` entries (``calculator``,
        ``server.tool``, ``server.*``) as seen by ``scope``'s user; unavailable entries are left
        out. Never raises for a missing or unreachable tool."""
        ...

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        """Run one call by its model-visible name. A tool that fails, is unknown or gets
        bad arguments gives ``ok=False`` with a short reason; it does not raise."""
        ...

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        """Whether the entry of ``allowed`` that grants model-visible ``name`` ends in
        ``!`` (a person approves each call before it runs)."""
        ...

    def withheld(self, name: str) -> str | None:
        """Why model-visible ``name`` was left out of the definitions on purpose (e.g. a
        quarantined MCP tool, ADR 0045), as the last ``definitions`` found; ``None`` when
        the runner has no reason (the call is refused as "no such tool")."""
        ...
