"""Writes a finished turn in one transaction: the turn, its messages, LLM calls and events.

Promise: either all of it is committed, once, or nothing is (the unit of work rolls back).
Message sequence: the user's message is 0, then the agents in routing / roster order, the
synthesis last, exactly as ``TurnRecord.messages`` orders them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert

from pantheon.db.engine import Database
from pantheon.db.models import LLMCall, Message, Turn, TurnEventRow
from pantheon.db.uow import unit_of_work
from pantheon.turns.live import PublishedEvent
from pantheon.turns.record import TurnRecord
from pantheon.turns.snapshot import TurnSnapshot


@dataclass(frozen=True, slots=True)
class FinishedTurn:
    snapshot: TurnSnapshot
    record: TurnRecord
    status: str
    error_code: str | None
    started_at: datetime
    finished_at: datetime
    message_ids: list[uuid.UUID]
    idempotency_key: str | None
    request_hash: str | None


def plan_message_ids(record: TurnRecord) -> list[uuid.UUID]:
    """Ids for the user message and every produced message, known before the write."""
    return [uuid.uuid4() for _ in range(len(record.messages) + 1)]


def _turn_row(turn: FinishedTurn) -> Turn:
    usage = turn.record.usage()
    snap = turn.snapshot
    return Turn(
        id=uuid.UUID(snap.turn_id),
        session_id=uuid.UUID(snap.session_id),
        mode=snap.mode,
        status=turn.status,
        message=snap.message,
        output=turn.record.output,
        rounds=turn.record.rounds,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        error_code=turn.error_code,
        idempotency_key=turn.idempotency_key,
        request_hash=turn.request_hash,
        created_at=turn.started_at,
        started_at=turn.started_at,
        finished_at=turn.finished_at,
    )


def _message_rows(turn: FinishedTurn) -> list[Message]:
    turn_id, session_id = uuid.UUID(turn.snapshot.turn_id), uuid.UUID(turn.snapshot.session_id)
    ids = iter(turn.message_ids)
    rows = [
        Message(
            id=next(ids), turn_id=turn_id, session_id=session_id, seq=0, role="user",
            content=turn.snapshot.message, created_at=turn.started_at,
        )
    ]  # fmt: skip
    for seq, produced in enumerate(turn.record.messages, start=1):
        rows.append(
            Message(
                id=next(ids), turn_id=turn_id, session_id=session_id, seq=seq,
                role=produced.role, agent_key=produced.agent_key,
                agent_name=produced.agent_name, round=produced.round,
                content=produced.content, status=produced.status,
                error_code=produced.error_code, created_at=turn.finished_at,
            )
        )  # fmt: skip
    return rows


def _call_rows(turn: FinishedTurn) -> list[LLMCall]:
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    return [
        LLMCall(
            turn_id=turn_id, seq=seq, purpose=call.purpose, model=call.model,
            agent_key=call.agent_key, round=call.round, input_tokens=call.input_tokens,
            output_tokens=call.output_tokens, usage_estimated=call.usage_estimated,
            cost_usd=call.cost_usd, latency_ms=call.latency_ms, ttft_ms=call.ttft_ms,
            status=call.status, error_code=call.error_code, started_at=call.started_at,
        )
        for seq, call in enumerate(turn.record.llm_calls, start=1)
    ]  # fmt: skip


async def record_turn(db: Database, turn: FinishedTurn, events: list[PublishedEvent]) -> None:
    """Persist ``turn`` and its ``events`` (which include the final one) in one commit."""
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    async with unit_of_work(db, write=True) as session:
        session.add(_turn_row(turn))
        await session.flush()  # parent row first: PostgreSQL checks foreign keys per statement
        session.add_all(_message_rows(turn))
        session.add_all(_call_rows(turn))
        # The event log is most of the rows (one per delta): one executemany INSERT, not
        # an ORM object per event, which cost ~2/3 of the recording time (docs/benchmarks.md).
        await session.execute(
            insert(TurnEventRow),
            [
                {"turn_id": turn_id, "seq": e.seq, "type": e.event.type,
                 "data": e.event.model_dump(mode="json", by_alias=True)}
                for e in events
            ],
        )  # fmt: skip
