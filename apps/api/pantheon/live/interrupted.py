"""Record, once, a turn whose process died before its commit: status ``interrupted``.

Whoever finds such a turn (the crash journal at start-up, a replica that saw another's
lease lapse) calls ``record_interrupted`` with the turn's ``TurnMeta`` and the JSON texts
of the events it had published. Promises:

- Once: a turn id already in the database (it committed after all, or another caller
  was first) is left alone and the call returns ``False``. Racing callers are safe: the
  loser's write fails on the primary key and it returns ``False`` too.
- One transaction through the recorder, like any turn: the turn row (``interrupted``,
  error code ``interrupted``), the user's message, each speaker's text as the events
  held it and the event log: the record is the fold of its events (``record_of``), as
  for every finished turn.
- The event log is the events given, in order, followed by one ``error`` event with
  ``code: interrupted`` (``interrupted_event``); a ``turn_completed`` or ``error`` the
  caller passes (a commit that failed) is dropped first, so the log still ends once.
- A continuation is recorded as one (``continues``, the decisions as its user message,
  each decided call's ``approval``), so its paused turn reads decided.
- The turn is stored **without** its Idempotency-Key (``request_hash`` is kept): an
  idempotent retry of the POST runs the turn again instead of returning the stump
  (docs/adr/0011-crash-journal.md).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import Turn
from pantheon.db.uow import unit_of_work
from pantheon.engine.events import ErrorEvent, TurnEvent, event_from_json, event_to_json
from pantheon.engine.fold import INTERRUPTED
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.error_codes import ErrorCode
from pantheon.live.meta import TurnMeta
from pantheon.live.observers.tracing_turn import trace_interrupted
from pantheon.live.recorder import FinishedTurn, plan_message_ids, record_of, record_turn
from pantheon.live.registry import PublishedEvent
from pantheon.observability import metrics

_TERMINAL = ("turn_completed", "error")
_INLINE_EVENTS = 2000  # more than this are parsed in a worker thread


def interrupted_event(turn_id: str) -> ErrorEvent:
    """The last event of an interrupted turn, stored and sent to its listeners."""
    return ErrorEvent(
        turn_id=turn_id,
        code=ErrorCode.INTERRUPTED,
        message="the server running this turn stopped before it finished",
    )


def _parse(texts: Sequence[str]) -> list[tuple[TurnEvent, str]]:
    """Each event with its text, without a final event (a commit that failed)."""
    parsed = [(event_from_json(text), text) for text in texts]
    return [(event, text) for event, text in parsed if event.type not in _TERMINAL]


def _numbered(parsed: list[tuple[TurnEvent, str]]) -> list[PublishedEvent]:
    """The events as published: public ones numbered 1, 2 ..., internal ones unnumbered."""
    out: list[PublishedEvent] = []
    seq = 0
    for event, text in parsed:
        seq += not event.internal
        out.append(PublishedEvent(seq, event, text, internal=event.internal))
    return out


async def _recorded(db: Database, turn_id: uuid.UUID) -> bool:
    async with unit_of_work(db, write=False) as session:
        return await session.get(Turn, turn_id) is not None


async def record_interrupted(
    db: Database, meta: TurnMeta, events: Sequence[str], ended_at: datetime | None = None
) -> bool:
    """Record the turn ``meta`` as ``interrupted`` unless it is already in the database.

    ``events``: the JSON texts of its published events in order (as journalled: the
    public ones, seq 1, 2 ..., with the internal ones among them). ``ended_at``: when it
    stopped, if known (else now). True if written now."""
    turn_id = uuid.UUID(meta.turn_id)
    if await _recorded(db, turn_id):
        return False
    if len(events) > _INLINE_EVENTS:
        parsed = await asyncio.to_thread(_parse, events)
    else:
        parsed = _parse(events)
    published = _numbered(parsed)
    record = record_of(meta.mode, published, meta.approvals)  # as a finished turn's
    # The recorder reads only the snapshot's ids, mode and message (a continuation's:
    # its decisions, as the meta keeps them); the roster is gone.
    snapshot = TurnSnapshot(meta.turn_id, meta.session_id, meta.mode, meta.message, (), "")
    finished = FinishedTurn(
        snapshot=snapshot, record=record, status=INTERRUPTED, error_code=ErrorCode.INTERRUPTED,
        started_at=meta.created_at, finished_at=ended_at or utcnow(),
        message_ids=plan_message_ids(record), idempotency_key=None,
        request_hash=meta.request_hash, continues=meta.continues,
    )  # fmt: skip
    last = interrupted_event(meta.turn_id)
    published.append(
        PublishedEvent(sum(not p.internal for p in published) + 1, last, event_to_json(last))
    )
    try:
        await record_turn(db, finished, published)
    except IntegrityError:
        if await _recorded(db, turn_id):
            return False  # someone else recorded it meanwhile
        raise
    # Its process died before its end was counted; the calls it made were (by that process).
    metrics.TURNS.labels(mode=meta.mode, status=INTERRUPTED).inc()
    trace_interrupted(meta, [event for event, _ in parsed], finished.finished_at)
    return True
