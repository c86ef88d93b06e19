"""Replay a finished turn on its recorded call outputs, optionally with changes.

``prepare_replay`` checks the turn can be replayed and builds what the replay runs on:
the turn's kept snapshot with the changes applied (and new ids), a ``RecordedGateway``
and ``RecordedTools`` over its recorded calls, and the recorded order of speakers for
concurrent rounds. Checks (docs/replay.md): unknown or another user's turn 404; awaiting
approval, cancelled or interrupted 409; recorded before call outputs were kept 409; an
unknown agent key, model alias or mode in the changes 422 naming the valid ones.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, Turn, TurnEventLog
from pantheon.engine.events import (
    LLMCallEvent,
    ToolCallRecordEvent,
    TurnEvent,
    event_from_json,
)
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.engine.tooling import ToolRunner
from pantheon.errors import Conflict, not_found
from pantheon.live import event_log
from pantheon.live.snapshot_json import snapshot_of
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.recorded import RecordedCall, RecordedGateway
from pantheon.llm.types import ToolCall, Usage
from pantheon.turns.replay.changes import apply_changes
from pantheon.turns.replay.tools import RecordedTools
from pantheon.turns.repository import TurnRepository
from pantheon.turns.schemas import ReplayCreate
from pantheon.users.access import user_allowlist

REPLAYABLE = frozenset({"completed", "partial", "failed"})


@dataclass(frozen=True, slots=True)
class Recording:
    """A finished turn's stored events: public (the final one left out) and internal."""

    public: list[TurnEvent]
    calls: list[LLMCallEvent]
    tools: list[ToolCallRecordEvent]


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """What a replay runs on: the recorded ``turn``, the snapshot with the changes and new
    ids, the recorded gateway and tools; ``changed``: some change alters the inputs."""

    turn: Turn
    snapshot: TurnSnapshot
    gateway: RecordedGateway
    tools: RecordedTools
    changed: bool


def not_exact(turn: Turn, why: str) -> Conflict:
    """409: the turn cannot be replayed exactly, and why."""
    return Conflict(f"turn {turn.id} cannot be replayed exactly: {why}")


async def _recording(db: AsyncSession, turn: Turn) -> Recording:
    data = await db.scalar(select(TurnEventLog.data).where(TurnEventLog.turn_id == turn.id))
    if data is None:
        raise not_exact(turn, "it has no event log")
    public, internal = await event_log.decode_all_async(data)
    events = [event_from_json(text) for text in [*public[:-1], *internal]]
    return Recording(
        public=[e for e in events if not e.internal],
        calls=[e for e in events if isinstance(e, LLMCallEvent)],
        tools=[e for e in events if isinstance(e, ToolCallRecordEvent)],
    )


def recorded_call(event: LLMCallEvent) -> RecordedCall:
    """What the gateway serves for one recorded call (its output must be kept)."""
    output = event.output
    assert output is not None
    assert event.digest is not None
    return RecordedCall(
        digest=event.digest,
        parts=output.parts,
        tool_calls=tuple(ToolCall(c.id, c.name, c.arguments) for c in output.tool_calls),
        usage=Usage(event.input_tokens, event.output_tokens, event.usage_estimated),
        error_code=event.error_code if event.status == "error" else None,
        refusal=output.refusal,
    )


def _check(turn: Turn, recording: Recording) -> None:
    if turn.continues_id is not None:
        raise not_exact(turn, "it continues a turn that paused for a person's approval")
    if turn.status not in REPLAYABLE:
        raise not_exact(turn, f"it ended '{turn.status}', so its record stops mid-call")
    old = "it was recorded before call outputs were kept (docs/replay.md)"
    if turn.snapshot is None:
        raise not_exact(turn, old)
    if any(c.output is None or c.digest is None for c in recording.calls):
        raise not_exact(turn, old)
    if any(t.executed is None for t in recording.tools):
        raise not_exact(turn, old)
    if any(c.status == "cancelled" for c in recording.calls):
        raise not_exact(turn, "some of its calls were cut short")


async def prepare_replay(
    db: AsyncSession,
    owner_id: uuid.UUID,
    turn_id: str,
    changes: ReplayCreate,
    gateway: LLMGateway,
    tools: ToolRunner,
) -> ReplayPlan:
    """Check the turn and build its replay (see the module docstring)."""
    turn = await TurnRepository(db).get(owner_id, turn_id)
    if turn is None:
        raise not_found("turn", turn_id)
    if turn.status == "awaiting_approval":
        raise Conflict(
            f"turn {turn.id} paused for a person's approval; a paused turn cannot be replayed"
        )
    recording = await _recording(db, turn)
    _check(turn, recording)
    assert turn.snapshot is not None
    recorded = snapshot_of(turn.snapshot)
    allowlist = await user_allowlist(db, owner_id)
    snapshot = apply_changes(recorded, changes, gateway.registry, allowlist)
    order = tuple(getattr(event, "agent_key", None) for event in recording.public)
    snapshot = replace(
        snapshot, turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), interleaving=order
    )
    return ReplayPlan(
        turn=turn,
        snapshot=snapshot,
        gateway=RecordedGateway(gateway, [recorded_call(c) for c in recording.calls]),
        tools=RecordedTools(tools, recording.tools),
        changed=snapshot.roster != recorded.roster
        or snapshot.mode != recorded.mode
        or snapshot.room_description != recorded.room_description,
    )


def replay_session(plan: ReplayPlan, owner_id: uuid.UUID) -> ChatSession:
    """The new session the replay runs in: where the recorded one was (its room, or its
    agent for a standalone turn), marked ``replay_of``."""
    snap = plan.snapshot
    room_id = uuid.UUID(snap.room_id) if snap.room_id is not None else None
    agent_id = None if room_id is not None else uuid.UUID(snap.roster[0].id)
    return ChatSession(
        id=uuid.UUID(snap.session_id),
        owner_id=owner_id,
        room_id=room_id,
        agent_id=agent_id,
        title=f"Replay of turn {plan.turn.id}",
        replay_of=plan.turn.id,
    )
