"""Turn, LLM-call and tool-call metrics read from one turn's published events.

The live runner attaches a ``TurnMetrics`` to each turn it runs; the engine knows
nothing of it. Each internal ``llm_call`` event is one settled call (its model, usage,
cost and timings), each ``tool_call_record`` one recorded tool call, and the final
event (``turn_completed``, or ``error`` when the turn could not run or be saved) ends
the turn: counted once, by mode and status.

A tool label is a tool the turn offered its agents (built-ins and the configured MCP
servers' tools, as ``OfferedTools`` saw them listed); any other name a model made up is
``other``, so a model cannot grow the metrics without bound.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pantheon.engine.events import (
    ErrorEvent,
    LLMCallEvent,
    ToolCallRecordEvent,
    TurnCompletedEvent,
)
from pantheon.engine.reader import TurnReader
from pantheon.engine.tooling import ToolResult, ToolRunner, ToolScope
from pantheon.error_codes import ErrorCode
from pantheon.live.registry import PublishedEvent
from pantheon.llm.types import ToolDefinition
from pantheon.observability import metrics

# The status label of a turn whose final event is ``error``: nothing says it completed.
ERROR_STATUS = "error"
# The tool label of a call to a name no agent of the turn was offered.
OTHER_TOOL = "other"


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


class OfferedTools:
    """The turn's ``ToolRunner``, noting the names of the tools it offers the agents."""

    def __init__(self, runner: ToolRunner) -> None:
        self._runner = runner
        self.names: set[str] = set()

    async def definitions(
        self, allowed: Sequence[str], scope: ToolScope | None = None
    ) -> list[ToolDefinition]:
        found = await self._runner.definitions(allowed, scope)
        self.names.update(definition.name for definition in found)
        return found

    async def call(self, name: str, arguments: Mapping[str, Any], scope: ToolScope) -> ToolResult:
        return await self._runner.call(name, arguments, scope)

    def needs_approval(self, allowed: Sequence[str], name: str) -> bool:
        return self._runner.needs_approval(allowed, name)

    def withheld(self, name: str) -> str | None:
        return self._runner.withheld(name)


class TurnMetrics(TurnReader[None]):
    """A ``TurnObserver`` (live/registry.py) that counts one turn while it runs, a
    ``TurnReader`` of its typed events; its tool labels are the names ``tools`` offered
    (the rest ``other``)."""

    def __init__(self, mode: str, tools: OfferedTools) -> None:
        super().__init__()
        self._mode = mode
        self._tools = tools
        self._started = time.monotonic()
        self._ended = False
        self._live = True
        metrics.LIVE_TURNS.inc()

    def published(self, published: PublishedEvent) -> None:
        """Count what the event says; called once per published event, in order."""
        self.feed(published.event)

    def on_llm_call(self, event: LLMCallEvent) -> Iterable[None]:
        _count_call(event)
        return ()

    def on_tool_call_record(self, event: ToolCallRecordEvent) -> Iterable[None]:
        name = event.name if event.name in self._tools.names else OTHER_TOOL
        metrics.TOOL_CALLS.labels(tool=name, outcome=tool_outcome(event)).inc()
        metrics.TOOL_DURATION.labels(tool=name).observe(event.duration_ms / 1000)
        return ()

    def on_turn_completed(self, event: TurnCompletedEvent) -> Iterable[None]:
        self._end(event.status)
        return ()

    def on_error(self, event: ErrorEvent) -> Iterable[None]:
        self._end(ERROR_STATUS)
        return ()

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
