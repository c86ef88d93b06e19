"""Deciding on a turn that awaits approval: the checks, then the continuation's snapshot.

Everything is read in the caller's read-only unit; bad input is a plain HTTP error with
nothing persisted: another user's turn 404, a turn not awaiting approval or already
decided 409, a decision list that does not answer exactly the pending calls 422.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Turn
from pantheon.engine.approvals import Decision, Resume, ResumeState, decisions_note
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.settings import Settings
from pantheon.turns.repository import TurnRepository
from pantheon.turns.schemas import ApprovalCreate, ApprovalDecision


def awaiting_conflict(turn: Turn) -> Conflict:
    """409 for a new message while ``turn`` waits for a person's decision."""
    return Conflict(
        f"turn {turn.id} is awaiting approval; decide with POST /v1/turns/{turn.id}/approvals "
        "before sending another message",
        awaiting_turn_id=str(turn.id),
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
    db: AsyncSession, settings: Settings, owner_id: uuid.UUID, turn_id: str, data: ApprovalCreate
) -> TurnSnapshot:
    """The snapshot of the turn that carries out the decisions on ``turn_id``."""
    turns = TurnRepository(db)
    turn = await turns.get(owner_id, turn_id)
    if turn is None:
        raise not_found("turn", turn_id)
    later = await turns.continuation_of(turn.id)
    if later is not None:
        raise Conflict(
            f"turn {turn.id} was already decided; turn {later.id} continues it",
            continued_by=str(later.id),
        )
    if turn.status != "awaiting_approval" or turn.resume_state is None:
        raise Conflict(f"turn {turn.id} is not awaiting approval (status '{turn.status}')")
    state = ResumeState.model_validate_json(turn.resume_state)
    decisions = _decisions(state, data.decisions)
    resume = Resume(str(turn.id), state, decisions, decisions_note(state, decisions))
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
