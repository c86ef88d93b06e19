"""Turn, LLM-call and tool-call metrics read from one turn's published events.

The live runner attaches a ``TurnMetrics`` to each turn it runs; the engine knows
nothing of it. Each internal ``llm_call`` event is one settled call (its model, usage,
cost and timings), each ``tool_call_record`` one recorded tool call, and the final
event (``turn_completed``, or ``error`` when the turn could not run or be saved) ends
the turn: counted once, by mode and status.
"""

from __future__ import annotations

import time

from pantheon.engine.events import (
    ErrorEvent,
    LLMCallEvent,
    ToolCallRecordEvent,
    TurnCompletedEvent,
    TurnEvent,
)
from pantheon.error_codes import ErrorCode
from pantheon.live.registry import PublishedEvent
from pantheon.observability import metrics

# The status label of a turn whose final event is ``error``: nothing says it completed.
ERROR_STATUS = "error"


def call_outcome(event: LLMCallEvent) -> str:
    """``ok``, ``cancelled``, or the failed call's error code."""
    if event.status == "error" and event.error_code:
        return event.error_code
    return event.status


def tool_outcome(event: ToolCallRecordEvent) -> str:
    """``ok`` / ``error``, or ``pending`` / ``rejected`` for a call an approval held."""
    if event.approval in ("pending", "rejected"):
        return event.approval
    return "ok" if event.ok else "error"


class TurnMetrics:
    """A ``TurnObserver`` (live/registry.py) that counts one turn while it runs."""

    def __init__(self, mode: str) -> None:
        self._mode = mode
        self._started = time.monotonic()
        self._ended = False
        self._live = True
        metrics.LIVE_TURNS.inc()

    def published(self, published: PublishedEvent) -> None:
        """Count what the event says; called once per published event, in order."""
        self.event(published.event)

    def event(self, event: TurnEvent) -> None:
        """Count what ``event`` says."""
        if isinstance(event, LLMCallEvent):
            _count_call(event)
        elif isinstance(event, ToolCallRecordEvent):
            tool = metrics.TOOL_CALLS.labels(tool=event.name, outcome=tool_outcome(event))
            tool.inc()
            metrics.TOOL_DURATION.labels(tool=event.name).observe(event.duration_ms / 1000)
        elif isinstance(event, TurnCompletedEvent):
            self._end(event.status)
        elif isinstance(event, ErrorEvent):
            self._end(ERROR_STATUS)

    def _end(self, status: str) -> None:
        if self._ended:  # a failed save publishes ``error`` after nothing else; never twice
            return
        self._ended = True
        metrics.TURNS.labels(mode=self._mode, status=status).inc()
        elapsed = time.monotonic() - self._started
        metrics.TURN_DURATION.labels(mode=self._mode).observe(elapsed)

    def closed(self) -> None:
        """The turn left this process: no longer live (once, however often it is told)."""
        if self._live:
            self._live = False
            metrics.LIVE_TURNS.dec()


def _count_call(event: LLMCallEvent) -> None:
    if event.replayed:  # a replay served it from the record: no upstream call, no cost
        return
    model = event.model
    outcome = call_outcome(event)
    metrics.LLM_CALLS.labels(model=model, purpose=event.purpose, outcome=outcome).inc()
    metrics.LLM_TOKENS.labels(model=model, direction="input").inc(event.input_tokens)
    metrics.LLM_TOKENS.labels(model=model, direction="output").inc(event.output_tokens)
    metrics.LLM_COST.labels(model=model).inc(event.cost_usd)
    metrics.LLM_LATENCY.labels(model=model).observe(event.latency_ms / 1000)
    if event.ttft_ms is not None:
        metrics.LLM_TTFT.labels(model=model).observe(event.ttft_ms / 1000)
    if outcome == ErrorCode.BUDGET_EXCEEDED:
        metrics.BUDGET_REFUSALS.labels(stage="call").inc()
