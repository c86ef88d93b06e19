"""Writes a finished turn in one transaction: the turn, its messages, LLM and tool calls,
its event log (one compressed row, ``turns.event_log``) and, when the turn folded older
history, the session's new summary. What it writes is the fold of the turn's published
events (``record_of``), whether the turn finished or its process died (ADR 0038).

Promise: either all of it is committed, once, or nothing is (the unit of work rolls back).
A transient failure (lost connection, locked database) is retried a few times first.
Message sequence: the user's message is 0, then the agents in routing / roster order, the
synthesis last, exactly as ``TurnRecord.messages`` orders them.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, or_, update
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from pantheon.db.engine import Database
from pantheon.db.models import ChatSession, LLMCall, Message, ToolCallRow, Turn, TurnEventLog
from pantheon.db.uow import unit_of_work
from pantheon.engine.fold import rebuild_record
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.engine.values import ApprovalStatus, Mode
from pantheon.live import event_log
from pantheon.live.meta import user_text
from pantheon.live.registry import PublishedEvent
from pantheon.live.snapshot_json import snapshot_json

logger = logging.getLogger(__name__)
# Core INSERTs of the tables themselves (not the ORM entities: no bulk-ORM grouping).
_TURNS, _MESSAGES, _LLM_CALLS, _TOOL_CALLS, _EVENT_LOGS = (
    insert(Turn.metadata.tables[model.__tablename__])
    for model in (Turn, Message, LLMCall, ToolCallRow, TurnEventLog)
)
WRITE_ATTEMPTS = 3
WRITE_BACKOFF_S = 0.05


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
    continues: str | None  # the paused turn a continuation finishes


def record_of(
    mode: Mode, log: Sequence[PublishedEvent], approvals: Mapping[str, ApprovalStatus]
) -> TurnRecord:
    """The one record path (ADR 0038): the turn's record as the fold reads the events it
    published, public and internal, for a finished turn and an interrupted one alike."""
    return rebuild_record(mode, (published.event for published in log), approvals)


def plan_message_ids(record: TurnRecord) -> list[uuid.UUID]:
    """Ids for the user message and every produced message, known before the write."""
    return [uuid.uuid4() for _ in range(len(record.messages) + 1)]


def _resume_state(turn: FinishedTurn) -> str | None:
    state = turn.record.resume_state
    if turn.status != "awaiting_approval" or state is None:
        return None
    return state.model_dump_json()


def _turn_row(turn: FinishedTurn) -> dict[str, Any]:
    usage = turn.record.usage()
    snap = turn.snapshot
    return {
        "id": uuid.UUID(snap.turn_id),
        "session_id": uuid.UUID(snap.session_id),
        "mode": snap.mode,
        "status": turn.status,
        "message": user_text(snap),
        "output": turn.record.output,
        "rounds": turn.record.rounds,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "error_code": turn.error_code,
        "context_dropped": turn.record.context_dropped,
        "idempotency_key": turn.idempotency_key,
        "request_hash": turn.request_hash,
        "created_at": turn.started_at,
        "started_at": turn.started_at,
        "finished_at": turn.finished_at,
        "continues_id": uuid.UUID(turn.continues) if turn.continues is not None else None,
        "resume_state": _resume_state(turn),
        "snapshot": snapshot_json(snap),
    }


def _message_rows(turn: FinishedTurn) -> list[dict[str, Any]]:
    turn_id, session_id = uuid.UUID(turn.snapshot.turn_id), uuid.UUID(turn.snapshot.session_id)
    ids = iter(turn.message_ids)
    user = {
        "id": next(ids), "turn_id": turn_id, "session_id": session_id, "seq": 0,
        "role": "user", "agent_key": None, "agent_name": None, "round": None,
        "content": user_text(turn.snapshot), "status": "ok", "error_code": None,
        "visible": True, "reused": False, "created_at": turn.started_at,
    }  # fmt: skip
    return [user] + [
        {
            "id": next(ids), "turn_id": turn_id, "session_id": session_id, "seq": seq,
            "role": produced.role, "agent_key": produced.agent_key,
            "agent_name": produced.agent_name, "round": produced.round,
            "content": produced.content, "status": produced.status,
            "error_code": produced.error_code, "visible": True,
            "reused": produced.reused, "created_at": turn.finished_at,
        }
        for seq, produced in enumerate(turn.record.messages, start=1)
    ]  # fmt: skip


def _call_rows(turn: FinishedTurn) -> list[dict[str, Any]]:
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    return [
        {
            "id": uuid.uuid4(), "turn_id": turn_id, "seq": seq, "purpose": call.purpose,
            "model": call.model, "agent_key": call.agent_key, "round": call.round,
            "input_tokens": call.input_tokens, "output_tokens": call.output_tokens,
            "usage_estimated": call.usage_estimated, "cost_usd": call.cost_usd,
            "latency_ms": call.latency_ms, "ttft_ms": call.ttft_ms, "status": call.status,
            "error_code": call.error_code, "started_at": call.started_at,
            "replayed": call.replayed,
        }
        for seq, call in enumerate(turn.record.llm_calls, start=1)
    ]  # fmt: skip


def _tool_rows(turn: FinishedTurn) -> list[dict[str, Any]]:
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    # message_ids[0] is the user's message; produced message i has id i + 1.
    return [
        {
            "id": uuid.uuid4(), "turn_id": turn_id, "seq": seq,
            "message_id": turn.message_ids[call.message_index + 1],
            "agent_key": call.agent_key, "round": call.round, "call_id": call.call_id,
            "name": call.name, "arguments": call.arguments, "result": call.result,
            "ok": call.ok, "duration_ms": call.duration_ms, "approval": call.approval,
        }
        for seq, call in enumerate(turn.record.tool_calls, start=1)
        if call.message_index is not None
    ]  # fmt: skip


async def _encoded_log(events: list[PublishedEvent]) -> bytes:
    # The JSON text that was streamed: no second serialisation, and replay sends the same bytes.
    public = [e.data for e in events if not e.internal]
    assert [e.seq for e in events if not e.internal] == list(range(1, len(public) + 1))
    return await event_log.encode_async(public, [e.data for e in events if e.internal])


def _transient(exc: DBAPIError) -> bool:
    """A failure another attempt can fix: a lost connection, a locked or restarting
    database; never a constraint or data error."""
    return exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError)


async def record_turn(db: Database, turn: FinishedTurn, events: list[PublishedEvent]) -> None:
    """Persist ``turn`` and its ``events`` (which include the final one; internal ones go
    to the log's internal part) in one commit, retried when the failure is transient
    (each attempt is all-or-nothing)."""
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    log = await _encoded_log(events)  # compressed before the write lock is taken
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            await _write(db, turn, log, sum(1 for e in events if not e.internal))
            return
        except DBAPIError as exc:
            if attempt == WRITE_ATTEMPTS or not _transient(exc):
                raise
            logger.warning("turn %s: write attempt %d failed (%s); retrying", turn_id, attempt, exc)
            await asyncio.sleep(WRITE_BACKOFF_S * 2**attempt)


async def _write(db: Database, turn: FinishedTurn, log: bytes, events: int) -> None:
    turn_id = uuid.UUID(turn.snapshot.turn_id)
    log_row = {"turn_id": turn_id, "events": events, "encoding": event_log.ENCODING, "data": log}
    async with unit_of_work(db, write=True) as session:
        # One Core INSERT (executemany) per table, parent row first (PostgreSQL checks
        # foreign keys per statement): no ORM objects, flush or identity map, and every
        # row of a table has the same columns, so a table is one statement. Building and
        # flushing objects was most of a turn's recording time (docs/benchmarks.md).
        for table, rows in (
            (_TURNS, [_turn_row(turn)]),
            (_MESSAGES, _message_rows(turn)),
            (_LLM_CALLS, _call_rows(turn)),
            (_TOOL_CALLS, _tool_rows(turn)),
            (_EVENT_LOGS, [log_row]),
        ):
            if rows:
                await session.execute(table, rows)
        if turn.record.summary is not None:
            await session.execute(_summary_update(turn))


def _summary_update(turn: FinishedTurn) -> Any:
    """The session's new summary; a summary never moves back (a newer one stays)."""
    summary = turn.record.summary
    assert summary is not None
    return (
        update(ChatSession)
        .where(
            ChatSession.id == uuid.UUID(turn.snapshot.session_id),
            or_(
                ChatSession.summary_through_at.is_(None),
                ChatSession.summary_through_at < summary.through_at,
            ),
        )
        .values(
            summary=summary.text,
            summary_through_turn_id=uuid.UUID(summary.through_turn_id),
            summary_through_at=summary.through_at,
            summary_messages=summary.messages,
            summary_updated_at=summary.updated_at,
        )
    )
