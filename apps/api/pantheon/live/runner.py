"""The body of a live turn: run the engine, publish its events, record once, then finish.

The record written is the fold of the events the turn published (public and internal:
``live.log``), the same path as an interrupted turn's (ADR 0038); the engine's own
``TurnRecord`` is only its working state and the outbox of those internal events.

Order of the last steps (the promise clients rely on): the engine stops; the turn, its
messages, calls and events (including ``turn_completed``) commit in one transaction that
a disconnect or cancel cannot interrupt; only then is ``turn_completed`` published. When
the engine itself breaks, the turn is recorded ``failed`` and ends with an ``error`` event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, replace

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.engine.errors import TurnAbort
from pantheon.engine.events import ErrorEvent, TurnCompletedEvent
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.engine.spending import SpendGuard
from pantheon.engine.tooling import ToolRunner
from pantheon.engine.values import TurnStatus
from pantheon.error_codes import ErrorCode
from pantheon.live.meta import continued_turn, decided_calls
from pantheon.live.observers.tracing_turn import attach, traced
from pantheon.live.observers.turn_metrics import OfferedTools, TurnMetrics
from pantheon.live.recorder import FinishedTurn, plan_message_ids, record_of, record_turn
from pantheon.live.registry import LiveTurn
from pantheon.llm.deadline import deadline_scope
from pantheon.llm.gateway import LLMGateway
from pantheon.observability.logs import turn_context

log = logging.getLogger(__name__)


# After the turn's deadline every LLM call fails at once (llm.deadline); this backstop
# stops anything else still waiting, a moment later.
DEADLINE_BACKSTOP_S = 2.0


@dataclass(frozen=True, slots=True)
class TurnJob:
    snapshot: TurnSnapshot
    gateway: LLMGateway
    db: Database
    timeout_s: float
    tools: ToolRunner
    spend: SpendGuard | None = None  # None: the owner has no budget


async def _drive_engine(job: TurnJob, live: LiveTurn, record: TurnRecord) -> TurnAbort | None:
    """Run the engine to its end; why it did not finish by itself, if it did not (out of
    time: ``DEADLINE_EXCEEDED``, and what it produced is kept)."""
    try:
        with deadline_scope(job.timeout_s):
            async with asyncio.timeout(job.timeout_s + DEADLINE_BACKSTOP_S):
                await _publish_events(job, live, record)
        if job.snapshot.resume is not None and job.snapshot.resume.cancelled:
            return TurnAbort.CANCELLED  # a paused turn cancelled: it ends as it starts
        if _hit_deadline(record):
            return TurnAbort.DEADLINE_EXCEEDED
    except TimeoutError:
        log.warning("turn %s: stopped at its deadline", job.snapshot.turn_id)
        return TurnAbort.DEADLINE_EXCEEDED
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # the turn was stopped; recording it is still our job
        return TurnAbort.CANCELLED
    except Exception:
        log.exception("turn %s: the engine failed", job.snapshot.turn_id)
        return TurnAbort.INTERNAL_ERROR
    return None


async def _publish_events(job: TurnJob, live: LiveTurn, record: TurnRecord) -> None:
    engine = run_turn(job.snapshot, job.gateway, job.tools, record, job.spend)
    async with contextlib.aclosing(engine) as events:
        async for event in events:
            _drain(live, record)  # calls settled before this event go first
            live.publish(event)


def _drain(live: LiveTurn, record: TurnRecord) -> None:
    """Publish the record's new internal events (no seq, never sent to clients)."""
    outbox = record.outbox
    if outbox:
        for internal in outbox:
            live.publish_internal(internal)
        outbox.clear()


def _error_code(abort: TurnAbort | None, record: TurnRecord) -> str | None:
    """Why the turn ended early: its abort, or a spend limit that skipped some calls."""
    if abort not in (None, TurnAbort.CANCELLED):
        return abort.value
    if abort is None and any(m.error_code == ErrorCode.BUDGET_EXCEEDED for m in record.messages):
        return ErrorCode.BUDGET_EXCEEDED
    return None


def _hit_deadline(record: TurnRecord) -> bool:
    return any(call.error_code == ErrorCode.DEADLINE_EXCEEDED for call in record.llm_calls)


async def _shielded(write: asyncio.Task[None]) -> None:
    """Await a write that must finish even if this task is cancelled meanwhile.

    A cancel that lands just as the write completes is swallowed too: the turn is
    committed, so its final event must still be published."""
    while True:
        try:
            await asyncio.shield(write)
            return
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            if write.done():
                write.result()  # the write's own outcome: its error, if it failed
                return


async def execute_turn(job: TurnJob, live: LiveTurn) -> None:
    """The live turn's task body (see the module docstring for the ordering); its events
    feed the metrics and its trace, and its log lines name it (pantheon.observability)."""
    offered = OfferedTools(job.tools)  # the metrics' tool labels: what the turn offered
    job = replace(job, tools=offered)
    live.watchers.append(TurnMetrics(job.snapshot.mode, offered))
    trace = attach(live.watchers, live.meta)  # traced: when tracing is on
    with turn_context(live.turn_id, live.session_id), traced(trace):
        await _execute(job, live)


async def _execute(job: TurnJob, live: LiveTurn) -> None:
    started_at = utcnow()
    working = TurnRecord(outbox=[])  # the engine's: its outbox feeds the log
    abort = await _drive_engine(job, live, working)
    _drain(live, working)  # what settled as the engine stopped (cancelled calls, speakers)
    # Recorded from the events it published, as an interrupted turn is (ADR 0038).
    record = record_of(job.snapshot.mode, live.log, decided_calls(job.snapshot))
    status: TurnStatus
    if abort is TurnAbort.CANCELLED:
        status = "cancelled"
    elif abort is TurnAbort.DEADLINE_EXCEEDED:
        status = "partial" if record.status != "failed" else "failed"
    elif abort is not None:
        status = "failed"
    else:
        status = record.status
    finished = FinishedTurn(
        snapshot=job.snapshot, record=record, status=status,
        error_code=_error_code(abort, record),
        started_at=started_at, finished_at=utcnow(),
        message_ids=plan_message_ids(record),
        idempotency_key=live.idempotency_key, request_hash=live.request_hash,
        continues=continued_turn(job.snapshot),
    )  # fmt: skip
    turn_id = job.snapshot.turn_id
    if abort is TurnAbort.INTERNAL_ERROR:
        final: ErrorEvent | TurnCompletedEvent = ErrorEvent(
            turn_id=turn_id, code=ErrorCode.INTERNAL_ERROR, message="the turn could not run"
        )
    else:
        final = TurnCompletedEvent(
            turn_id=turn_id, status=status, usage=record.usage(),
            message_ids=[str(i) for i in finished.message_ids], error_code=finished.error_code,
        )  # fmt: skip
    await _record_and_finish(job, live, finished, final)


async def _record_and_finish(
    job: TurnJob, live: LiveTurn, finished: FinishedTurn, final: ErrorEvent | TurnCompletedEvent
) -> None:
    last = live.prepare(final)
    write = asyncio.create_task(record_turn(job.db, finished, [*live.log, last]))
    try:
        await _shielded(write)
    except Exception:
        log.exception("turn %s: recording failed; nothing was written", finished.snapshot.turn_id)
        await _committed(live)
        live.publish(
            ErrorEvent(
                turn_id=finished.snapshot.turn_id,
                code=ErrorCode.PERSISTENCE_FAILED,
                message="the turn could not be saved",
            )
        )
        return
    live.recorded = True
    await _committed(live)
    live.append(last)


async def _committed(live: LiveTurn) -> None:
    """Let a shared backend free the session before the final event goes out, as the
    in-process registry does (a client that reads the final event may start the next
    turn at once). Shielded: a late cancel must not skip the final event."""
    if live.mirror is not None:
        await _shielded(asyncio.create_task(live.mirror.committed()))
