"""The plain data a turn runs on: frozen at the turn's start, no ORM objects.

The route builds a ``TurnSnapshot`` from the database, releases its connection and hands
the snapshot to the engine; roster or mode edits made while the turn runs affect only
later turns. ``owner_id`` and ``room_id`` scope tools that read a user's data; an
agent's ``tools`` are its entries as stored (``calculator``, ``server.*``). For
``standalone`` the roster holds exactly the one bound agent. ``roster`` order is not
trusted: the engine orders agents by ``position`` (then key) itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pantheon.engine.values import MODES, MessageRole, Mode
from pantheon.settings import OrchestratorSettings, ToolSettings

if TYPE_CHECKING:  # approvals imports this module's types for its saved state
    from pantheon.engine.approvals import Resume

HistoryRole = MessageRole
__all__ = ["MODES", "AgentSnapshot", "HistoryEntry", "HistoryRole", "Mode", "TurnSnapshot"]


@dataclass(frozen=True, slots=True)
class AgentSnapshot:
    id: str
    key: str
    name: str
    role_prompt: str
    model: str
    position: int
    tools: tuple[str, ...] = ()
    # The caller's standing instructions for this turn (the OpenAI facade's system
    # message), added to this agent's system prompt; ``None`` for native turns.
    instructions: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One earlier visible message of the session, oldest first in ``TurnSnapshot.history``."""

    role: HistoryRole
    content: str
    agent_key: str | None = None
    agent_name: str | None = None


@dataclass(frozen=True, slots=True)
class ClientContext:
    """Context a client supplies itself instead of the session's (the OpenAI facade).

    ``history`` replaces the session's stored history when not ``None``; ``instructions``
    go into every agent's system prompt (``AgentSnapshot.instructions``)."""

    history: tuple[HistoryEntry, ...] | None = None
    instructions: str | None = None


@dataclass(frozen=True, slots=True)
class TurnSnapshot:
    turn_id: str
    session_id: str
    mode: Mode
    message: str
    roster: tuple[AgentSnapshot, ...]
    manager_model: str
    history: tuple[HistoryEntry, ...] = ()
    orchestrator: OrchestratorSettings = field(default_factory=OrchestratorSettings)
    tool_limits: ToolSettings = field(default_factory=ToolSettings)
    owner_id: str = ""
    room_id: str | None = None
    # A continuation of a turn paused for approval (engine/approvals.py), else None.
    resume: Resume | None = None

    def ordered_roster(self) -> list[AgentSnapshot]:
        """The roster in room position order (ties broken by key, for determinism)."""
        return sorted(self.roster, key=lambda a: (a.position, a.key))
