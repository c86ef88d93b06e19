"""Deciding on a turn that awaits approval: the checks, the continuation's snapshot, and
the claim that lets exactly one decision through.

The checks read in the caller's read-only unit; bad input is a plain HTTP error with
nothing persisted: another user's turn 404, a turn not awaiting approval or already
decided 409, a decision list that does not answer exactly the pending calls 422.

A read says nothing about a request racing this one (here or on another replica), so the
decision is then claimed in the database (``turn_decisions``, one row per paused turn),
committed before the continuation starts: the first claim wins, the others get 409. Once
claimed the paused turn reads decided, whatever becomes of its continuation; only a
continuation that never started gives its claim back (``release_decision``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import TurnDecision
from pantheon.db.uow import unit_of_work
from pantheon.engine.approvals import Decision, Resume, ResumeState, decisions_note
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.settings import Settings
from pantheon.turns.repository import TurnRepository
from pantheon.turns.schemas import ApprovalCreate, ApprovalDecision

CANCELLED = "the turn was cancelled"  # why each call of a cancelled pause was rejected


def awaiting_conflict(turn_id: uuid.UUID) -> Conflict:
    """409 for a new message while turn ``turn_id`` waits for a person's decision."""
    return Conflict(
        f"turn {turn_id} is awaiting approval; decide with POST /v1/turns/{turn_id}/approvals "
        "before sending another message",
        awaiting_turn_id=str(turn_id),
    )


def decided_conflict(turn_id: uuid.UUID, continuation_id: uuid.UUID) -> Conflict:
    """409 for a decision on a turn that was already decided."""
    return Conflict(
        f"turn {turn_id} was already decided; turn {continuation_id} continues it",
        continued_by=str(continuation_id),
    )


def _decisions(state: ResumeState, given: Sequence[ApprovalDecision]) -> dict[str, Decision]:
    pending = [call.id for _key, call in state.pending_calls()]
    decisions: dict[str, Decision] = {}
    for item in given:
        if item.call_id in decisions:
            raise Unprocessable(f"call {item.call_id!r} is decided twice in this request")
        if item.call_id not in pending:
            raise Unprocessable(
                f"unknown call_id {item.call_id!r}; pending calls: {', '.join(pending)}",
                pending=pending,
            )
        decisions[item.call_id] = Decision(item.approve, item.reason)
    missing = [call_id for call_id in pending if call_id not in decisions]
    if missing:
        raise Unprocessable(
            f"no decision for pending call(s) {', '.join(missing)}; decide every one",
            missing=missing,
        )
    return decisions


async def prepare_continuation(
    db: AsyncSession,
    settings: Settings,
    owner_id: uuid.UUID,
    turn_id: str,
    data: ApprovalCreate | None,
) -> TurnSnapshot:
    """The snapshot of the turn that carries out the decisions on ``turn_id``; ``data``
    ``None``: the turn is cancelled, every pending call rejected (ADR 0030)."""
    turns = TurnRepository(db)
    turn = await turns.get(owner_id, turn_id)
    if turn is None:
        raise not_found("turn", turn_id)
    decided = await turns.decision(turn.id)
    if decided is not None:
        raise decided_conflict(turn.id, decided.continuation_id)
    if turn.status != "awaiting_approval" or turn.resume_state is None:
        raise Conflict(f"turn {turn.id} is not awaiting approval (status '{turn.status}')")
    state = ResumeState.model_validate_json(turn.resume_state)
    if data is None:
        decisions = {call.id: Decision(False, CANCELLED) for _key, call in state.pending_calls()}
    else:
        decisions = _decisions(state, data.decisions)
    note = decisions_note(state, decisions)
    resume = Resume(str(turn.id), state, decisions, note, cancelled=data is None)
    return TurnSnapshot(
        turn_id=str(uuid.uuid4()),
        session_id=str(turn.session_id),
        mode=state.mode,
        message=state.message,
        roster=state.roster,
        manager_model=state.manager_model,
        history=state.history,
        orchestrator=settings.orchestrator,
        tool_limits=settings.tools,
        owner_id=str(owner_id),
        room_id=state.room_id,
        resume=resume,
    )


def _claimed(snapshot: TurnSnapshot) -> tuple[uuid.UUID, uuid.UUID, str]:
    """(paused turn, continuation, what was decided) of a continuation's snapshot."""
    assert snapshot.resume is not None, "only a continuation claims a decision"
    resume = snapshot.resume
    return uuid.UUID(resume.continues), uuid.UUID(snapshot.turn_id), resume.note


async def claim_decision(db: Database, snapshot: TurnSnapshot) -> None:
    """Commit the decision ``snapshot`` carries out; 409 when another was claimed first
    (the primary key admits one, across requests and replicas)."""
    paused, continuation, note = _claimed(snapshot)
    row = TurnDecision(turn_id=paused, continuation_id=continuation, note=note, decided_at=utcnow())
    try:
        async with unit_of_work(db, write=True) as session:
            session.add(row)
    except IntegrityError:
        async with unit_of_work(db, write=False) as session:
            winner = await TurnRepository(session).decision(paused)
        if winner is None:  # claimed, then given back meanwhile: its continuation never ran
            raise Conflict(f"turn {paused} is being decided by another request; retry") from None
        raise decided_conflict(paused, winner.continuation_id) from None


async def release_decision(db: Database, snapshot: TurnSnapshot) -> None:
    """Give back a claim whose continuation never started (nothing ran): the paused turn
    awaits a decision again."""
    paused, continuation, _note = _claimed(snapshot)
    async with unit_of_work(db, write=True) as session:
        await session.execute(
            delete(TurnDecision).where(
                TurnDecision.turn_id == paused, TurnDecision.continuation_id == continuation
            )
        )
