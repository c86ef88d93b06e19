"""The plain data a turn runs on: frozen at the turn's start, no ORM objects.

The route builds a ``TurnSnapshot`` from the database, releases its connection and hands
the snapshot to the engine; roster or mode edits made while the turn runs affect only
later turns. ``history`` is what follows the session's ``summary`` (if any), oldest
first. ``owner_id`` and ``room_id`` scope tools that read a user's data; an
agent's ``tools`` are its entries as stored (``calculator``, ``server.*``). For
``standalone`` the roster holds exactly the one bound agent. ``roster`` order is not
trusted: the engine orders agents by ``position`` (then key) itself.
``room_description`` is the room's purpose, given to every agent and the manager;
``reuse`` holds the stages a pipeline ``rerun_from`` takes over from the session's last
pipeline turn (checked by the route: they are the roster's first stages, in order).
``retry`` (an orchestrator turn's retry, ADR 0034) names the failed agents to run again
and the recorded outputs the synthesis reuses.
``interleaving`` (a replay, docs/replay.md): the speaker of each event of the recorded
turn, so that concurrent speakers' events come out in the recorded order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pantheon.engine.values import MODES, MessageRole, Mode
from pantheon.settings import ContextSettings, OrchestratorSettings, ReviewSettings, ToolSettings

if TYPE_CHECKING:  # approvals imports this module's types for its saved state
    from pantheon.engine.approvals import Resume

HistoryRole = MessageRole
__all__ = [
    "MODES",
    "AgentSnapshot",
    "HistoryEntry",
    "HistoryRole",
    "Mode",
    "RetryPlan",
    "ReusedOutput",
    "ReusedStage",
    "SessionSummary",
    "TurnSnapshot",
]


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
    # Where a stored message sits (its turn, its time): what a summary records it covers.
    turn_id: str | None = None
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """The session's rolling summary of its older history (docs/context.md).

    It covers every message up to ``through_at`` (the newest folded message, of turn
    ``through_turn_id``); ``messages`` counts them all, over every fold."""

    text: str
    through_turn_id: str
    through_at: datetime
    messages: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ReusedStage:
    """A pipeline stage's output taken over from an earlier turn instead of run again."""

    agent_key: str
    agent_name: str
    content: str


@dataclass(frozen=True, slots=True)
class ReusedOutput:
    """A specialist's successful output in the turn a retry re-runs, as recorded."""

    agent_key: str
    agent_name: str
    content: str
    round: int | None = None


@dataclass(frozen=True, slots=True)
class RetryPlan:
    """A retry of orchestrator turn ``turn_id`` (``POST /v1/turns/{id}/retry``): the
    ``agents`` that failed there run again, together, as round ``round`` (reading the
    outputs of the rounds before it), then the synthesis over ``outputs`` and theirs.
    No agents: the synthesis alone."""

    turn_id: str
    round: int
    agents: tuple[str, ...]
    outputs: tuple[ReusedOutput, ...]


@dataclass(frozen=True, slots=True)
class ClientContext:
    """Context a client supplies itself instead of the session's (the OpenAI facade).

    ``history`` replaces the session's stored history when not ``None``; ``instructions``
    go into every agent's system prompt (``AgentSnapshot.instructions``); ``message_id``
    is the client's id of its message (A2A's ``messageId``), kept with the turn."""

    history: tuple[HistoryEntry, ...] | None = None
    instructions: str | None = None
    message_id: str | None = None


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
    room_description: str = ""
    review: ReviewSettings = field(default_factory=ReviewSettings)
    reuse: tuple[ReusedStage, ...] = ()
    # The session's summary and whether ``history`` is the session's own (stored, so older
    # parts may be folded into the summary) rather than one a client sent (the facade).
    summary: SessionSummary | None = None
    stored_history: bool = False
    # More unsummarised messages exist than were read (``turns.history_messages``).
    history_truncated: bool = False
    context: ContextSettings = field(default_factory=ContextSettings)
    client_message_id: str | None = None  # ClientContext.message_id, kept in the record
    # A continuation of a turn paused for approval (engine/approvals.py), else None.
    resume: Resume | None = None
    interleaving: tuple[str | None, ...] = ()
    retry: RetryPlan | None = None

    def ordered_roster(self) -> list[AgentSnapshot]:
        """The roster in room position order (ties broken by key, for determinism)."""
        return sorted(self.roster, key=lambda a: (a.position, a.key))
