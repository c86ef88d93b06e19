"""Where a turn's trace is exported: once, by whoever records the turn.

The live runner attaches a ``TurnTracer`` (a ``TurnObserver``) to a traced turn: it
notes each event's clock reading and, at the final event, folds them into spans and
queues them. A turn whose process died is recorded ``interrupted`` elsewhere
(``live/interrupted.py``), which calls ``trace_interrupted`` with the events its
journal or Redis stream kept and the ``TurnTrace`` its meta kept: the same trace and
turn span id the dead process had put on its outgoing requests, so one coherent trace.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from pantheon.engine.events import DeltaEvent, ErrorEvent, TurnCompletedEvent, TurnEvent
from pantheon.live.meta import TurnMeta
from pantheon.live.observers.tracing_fold import TurnFacts, turn_spans
from pantheon.live.registry import PublishedEvent, TurnObserver
from pantheon.observability import tracing
from pantheon.observability.logs import trace_id_var
from pantheon.observability.trace_context import TurnTrace, current_traceparent

INTERRUPTED = "interrupted"


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


class TurnTracer:
    """A ``TurnObserver`` (live/registry.py) that exports one turn's trace at its end."""

    def __init__(self, export: tracing.SpanExport, trace: TurnTrace, meta: TurnMeta) -> None:
        self._export = export
        self._trace = trace
        self._meta = meta
        self._start = time.time_ns()
        self._events: list[tuple[TurnEvent, int | None]] = []
        self._done = False

    def published(self, published: PublishedEvent) -> None:
        """Note the event and when it came; deltas carry nothing a span needs."""
        event = published.event
        if self._done or isinstance(event, DeltaEvent):
            return
        self._events.append((event, time.time_ns()))
        if isinstance(event, TurnCompletedEvent | ErrorEvent):
            self._finish(event.status if isinstance(event, TurnCompletedEvent) else "error")

    def closed(self) -> None:
        """The turn left this process; if no final event came, export what there is."""
        if not self._done:
            self._finish("error")

    def _finish(self, status: str) -> None:
        self._done = True
        facts = _facts(self._trace, self._meta, self._start, time.time_ns(), status)
        self._export.export(self._trace.trace_id, turn_spans(facts, self._events))
        self._events = []


def attach(watchers: list[TurnObserver], meta: TurnMeta | None) -> TurnTrace | None:
    """Add a ``TurnTracer`` for a traced turn when tracing is on; the turn's trace."""
    export = tracing.active()
    if export is None or meta is None or meta.trace is None:
        return None
    watchers.append(TurnTracer(export, meta.trace, meta))
    return meta.trace


@contextmanager
def traced(trace: TurnTrace | None) -> Iterator[None]:
    """Inside the block (this task), outgoing calls carry the turn's ``traceparent`` and
    log lines its ``trace_id``."""
    if trace is None:
        yield
        return
    parent_token = current_traceparent.set(trace.traceparent)
    id_token = trace_id_var.set(trace.trace_id)
    try:
        yield
    finally:
        trace_id_var.reset(id_token)
        current_traceparent.reset(parent_token)


def _facts(trace: TurnTrace, meta: TurnMeta, start: int, end: int, status: str) -> TurnFacts:
    export = tracing.active()
    capture = export is not None and export.config.capture_content
    return TurnFacts(
        trace=trace, turn_id=meta.turn_id, session_id=meta.session_id, mode=meta.mode,
        message=meta.message, start_ns=start, end_ns=end, status=status,
        capture_content=capture,
    )  # fmt: skip


def trace_interrupted(meta: TurnMeta, events: Sequence[TurnEvent], ended_at: datetime) -> None:
    """Export the trace of a turn recorded ``interrupted`` here (no-op when untraced)."""
    export = tracing.active()
    if export is None or meta.trace is None:
        return
    facts = _facts(meta.trace, meta, _ns(meta.created_at), _ns(ended_at), INTERRUPTED)
    timed: list[tuple[TurnEvent, int | None]] = [(event, None) for event in events]
    export.export(meta.trace.trace_id, turn_spans(facts, timed))
