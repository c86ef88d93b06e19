"""One case on one target, run as an ordinary turn through ``TurnService``.

The case gets its own session (titled after the run and case; the session lists leave
it out unless asked, ``include_evals``, the eval page links to it), its turn is started
and awaited the way ``POST /v1/sessions/{id}/turns`` does (budgeted, cancellable), and
its answer is read
by reading the turn's typed events with ``engine/narration.py`` (the text a person reads,
as the mode's spec says). A cancelled case cancels its turn and waits for it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.narration import Narration
from pantheon.engine.snapshot import ClientContext, HistoryEntry
from pantheon.evals.cases import Case
from pantheon.evals.checks import Outcome, ToolUse
from pantheon.evals.schemas import TargetRead
from pantheon.live.streamed import typed
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import SessionCreate
from pantheon.sessions.service import SessionService
from pantheon.turns.schemas import TurnCreate, TurnDetail
from pantheon.turns.service import TurnService

Started = Callable[[uuid.UUID, uuid.UUID], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class CaseRun:
    """A finished case turn: what the checks read plus the figures a result stores."""

    outcome: Outcome
    detail: TurnDetail
    calls: int


async def open_session(
    db: Database, owner_id: uuid.UUID, target: TargetRead, title: str
) -> uuid.UUID:
    """A new session for one case: in the room, or on the target's agent."""
    async with unit_of_work(db, write=True) as session:
        service = SessionService(SessionRepository(session))
        data = SessionCreate(title=title)
        if mode_spec(target.mode).session == "room":
            assert target.room_id is not None
            read = await service.create_in_room(owner_id, str(target.room_id), data)
        else:
            assert target.agent_id is not None
            read = await service.create_standalone(owner_id, str(target.agent_id), data)
        return read.id


def _context(case: Case) -> ClientContext | None:
    """A conversation's earlier messages as the turn's history (the last is the message)."""
    if case.conversation is None:
        return None
    history = tuple(HistoryEntry(role=m.role, content=m.content) for m in case.conversation[:-1])
    return ClientContext(history=history)


async def _answer(turns: TurnService, owner_id: uuid.UUID, turn_id: str) -> str:
    transcript = Narration()
    parts: list[str] = []
    async for event in typed(await turns.events(owner_id, turn_id, 0)):
        for field, text in transcript.feed(event):
            if field == "content":
                parts.append(text)
    return "".join(parts).strip()


async def run_case(
    turns: TurnService,
    owner_id: uuid.UUID,
    target: TargetRead,
    case: Case,
    session_id: uuid.UUID,
    started: Started,
) -> CaseRun:
    """Run ``case`` in ``session_id``; ``started`` hears the turn's id before it is awaited."""
    message = TurnCreate(message=case.question, mode=target.mode)
    turn = await turns.start(owner_id, str(session_id), message, None, _context(case))
    try:
        await started(session_id, uuid.UUID(turn.turn_id))
        detail = await turns.wait_for_detail(owner_id, turn)
    except asyncio.CancelledError:
        if turn.live is not None:  # the run was cancelled or ran out of time: stop the turn
            turn.live.cancel()
            with contextlib.suppress(Exception):
                await asyncio.shield(turn.live.wait_finished())
        raise
    answer = await _answer(turns, owner_id, turn.turn_id)
    latency = detail.finished_at - detail.created_at if detail.finished_at else None
    outcome = Outcome(
        answer=answer,
        turn_status=detail.status,
        cost_usd=detail.usage.cost_usd,
        latency_ms=int(latency.total_seconds() * 1000) if latency else 0,
        tool_calls=tuple(ToolUse(c.name, c.arguments) for c in detail.tool_calls),
    )
    return CaseRun(outcome, detail, len(detail.llm_calls))
