"""One tool round of a speaker: announce every call, run them concurrently within the
limits, report them in call order, and record each one, even when cancelled.

Promises:
- A ``tool_call`` event per call, in call order, before any of them runs; then a
  ``tool_result`` per call, in call order (a call's result waits for the ones before it).
- At most ``max_parallel`` calls run at once, each under ``timeout_s``. Arguments that are
  not a JSON object, a name that was not offered, a call past the turn's call budget, a
  tool that raises or times out: each is an ``ok=False`` result the model reads; the
  round goes on and no sibling's result is lost.
- Closing the stream mid-round cancels the running calls and records them ``ok=False``
  with ``result="cancelled"``; finished calls keep their results.
- Approvals (docs/approvals.md): a call to a ``gated`` name that passed the checks above
  does not run; it gets an ``approval_required`` event instead of a ``tool_result``, is
  recorded ``approval="pending"`` and lands in ``RoundOutcome.held`` (no ``tool``
  message: the caller pauses). The round's other calls run as usual. Resuming such a
  round (``settled``) announces and runs the approved calls, answers the rejected ones
  with the reason, and rebuilds every ``tool`` message of the round in call order,
  reusing the results the paused turn already had (those are not recorded again).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pantheon.engine.approvals import Decision, refusal_text
from pantheon.engine.events import (
    ApprovalRequiredEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
)
from pantheon.engine.record import ToolCallRecord, TurnRecord
from pantheon.engine.tooling import ToolError, ToolResult, ToolRunner, ToolScope
from pantheon.engine.values import ApprovalStatus
from pantheon.llm.types import ChatMessage, ToolCall
from pantheon.settings import ToolSettings
from pantheon.text import clean_text

logger = logging.getLogger(__name__)
CANCELLED = "cancelled"


@dataclass(slots=True)
class ToolBudget:
    """The turn's tool limits, shared by all of its speakers (single event loop: no lock)."""

    limits: ToolSettings
    calls_left: int
    rounds: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, limits: ToolSettings) -> ToolBudget:
        return cls(limits, limits.max_calls_per_turn)

    def may_offer(self, agent_key: str) -> bool:
        """Whether the agent's next call may carry tools (else it is the last call)."""
        return self.calls_left > 0 and self.rounds.get(agent_key, 0) < self.limits.max_rounds

    def start_round(self, agent_key: str, calls: int) -> tuple[int, int]:
        """(the agent's tool round number, how many of ``calls`` may run)."""
        round_no = self.rounds.get(agent_key, 0) + 1
        self.rounds[agent_key] = round_no
        granted = min(calls, self.calls_left)
        self.calls_left -= granted
        return round_no, granted


@dataclass(frozen=True, slots=True)
class ToolRound:
    """Who calls, in which round, with what offered; ``granted`` calls may run."""

    turn_id: str
    scope: ToolScope
    round: int
    message_slot: int
    offered: frozenset[str]
    granted: int
    gated: frozenset[str] = frozenset()  # offered names whose calls wait for a person
    # False in modes that cannot pause (``ModeSpec.can_pause``): a gated call is refused instead.
    pausable: bool = True
    # Names held back on purpose, with why (``ToolRunner.withheld``): their refusal says so.
    withheld: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Settled:
    """Resuming a paused round: results it already had, and the person's decisions."""

    results: Mapping[str, str]
    decisions: Mapping[str, Decision]


@dataclass(slots=True)
class RoundOutcome:
    """Filled by ``run_round``: calls held for approval, and every result by call id."""

    held: list[ToolCall] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Parsed:
    arguments: dict[str, Any]
    raw: str | None  # the model's text when it is not a JSON object
    error: str | None


def parse_arguments(text: str) -> _Parsed:
    """The call's arguments as an object, or the reason they are unusable."""
    if not text.strip():
        return _Parsed({}, None, None)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return _Parsed({}, text, f"arguments are not valid JSON ({exc.msg})")
    if not isinstance(value, dict):
        return _Parsed({}, text, "arguments must be a JSON object")
    return _Parsed(value, None, None)


async def _invoke(
    runner: ToolRunner, call: ToolCall, args: dict[str, Any], scope: ToolScope, timeout_s: float
) -> ToolResult:
    try:
        async with asyncio.timeout(timeout_s):
            result = await runner.call(call.name, args, scope)
        # A tool's text is outside text (an MCP server, a document): make it storable.
        return ToolResult(result.ok, clean_text(result.content), result.duration_ms)
    except TimeoutError:
        return ToolResult(False, f"timed out after {timeout_s:g}s")
    except ToolError as exc:
        return ToolResult(False, str(exc) or "the tool failed")
    except Exception:
        logger.exception("turn %s: tool %s crashed", scope.turn_id, call.name)
        return ToolResult(False, "the tool failed unexpectedly")


class _Slot:
    """One call of the round: its record slot, its task (if it runs) and timings.

    ``refused``: the result text when it must not run; ``held``: it waits for a person;
    ``known``: its result from the paused turn; ``approval``: what the record says."""

    def __init__(self, call: ToolCall, parsed: _Parsed) -> None:
        self.call, self.parsed, self.record_slot = call, parsed, -1
        self.refused: str | None = None
        self.held = False
        self.known: str | None = None
        self.approval: ApprovalStatus | None = None
        self.task: asyncio.Task[ToolResult] | None = None
        self.started: float | None = None
        self.ms = 0

    @property
    def runs(self) -> bool:
        return self.refused is None and not self.held and self.known is None


def _plan(spec: ToolRound, calls: Sequence[ToolCall], settled: Settled | None) -> list[_Slot]:
    slots = [_Slot(c, parse_arguments(c.arguments)) for c in calls]
    for index, slot in enumerate(slots):
        if settled is None:
            slot.refused = _refusal(spec, slot, index)
            slot.held = slot.refused is None and slot.call.name in spec.gated
            slot.approval = "pending" if slot.held else None
        elif slot.call.id in settled.results:
            slot.known = settled.results[slot.call.id]
        else:  # a decided call: it passed the checks when it was held
            decision = settled.decisions.get(slot.call.id, Decision(False, "no decision"))
            slot.approval = decision.approval
            slot.refused = None if decision.approve else refusal_text(decision.reason)
    return slots


async def run_round(
    spec: ToolRound,
    calls: Sequence[ToolCall],
    runner: ToolRunner,
    limits: ToolSettings,
    record: TurnRecord,
    replies: list[ChatMessage],
    outcome: RoundOutcome | None = None,
    settled: Settled | None = None,
) -> AsyncIterator[TurnEvent]:
    """The round's events; ``replies`` gets one ``tool`` message per call, in call order
    (none while some call is held)."""
    outcome = outcome if outcome is not None else RoundOutcome()
    slots = _plan(spec, calls, settled)
    fresh = [s for s in slots if s.known is None]
    for slot in fresh:
        slot.record_slot = record.reserve_tool_call()
    done: set[int] = set()
    try:
        for slot in fresh:
            yield _call_event(spec, slot)
        gate = asyncio.Semaphore(limits.max_parallel)
        for slot in fresh:
            if slot.runs:
                slot.task = asyncio.create_task(_guarded(slot, gate, runner, spec.scope, limits))
        for index, slot in enumerate(slots):
            if slot.known is not None:
                outcome.results[slot.call.id] = slot.known
                continue
            if slot.held:
                outcome.held.append(slot.call)
                _record(record, spec, slot, False, "awaiting approval")
                done.add(index)
                yield _approval_event(spec, slot)
                continue
            result = ToolResult(False, slot.refused) if slot.refused else await _finished(slot)
            content = result.content[: limits.max_result_chars]
            outcome.results[slot.call.id] = content
            _record(record, spec, slot, result.ok, content)
            done.add(index)
            yield _result_event(spec, slot, result.ok, content)
        if not outcome.held:
            for slot in slots:
                content = outcome.results[slot.call.id]
                replies.append(ChatMessage("tool", content, tool_call_id=slot.call.id))
    finally:
        await _cancel_rest(record, spec, slots, done, limits.max_result_chars)


def _refusal(spec: ToolRound, slot: _Slot, index: int) -> str | None:
    if index >= spec.granted:
        return "not run: the turn's tool call limit was reached"
    if slot.call.name not in spec.offered:
        return spec.withheld.get(slot.call.name) or f"no such tool: {slot.call.name}"
    if slot.call.name in spec.gated and not spec.pausable:
        return (
            f"not run: {slot.call.name} needs a person's approval, which this mode cannot wait for"
        )
    return slot.parsed.error


async def _guarded(
    slot: _Slot, gate: asyncio.Semaphore, runner: ToolRunner, scope: ToolScope, limits: ToolSettings
) -> ToolResult:
    async with gate:
        slot.started = time.perf_counter()
        try:
            result = await _invoke(
                runner, slot.call, slot.parsed.arguments, scope, limits.timeout_s
            )
        finally:
            slot.ms = int((time.perf_counter() - slot.started) * 1000)
        if result.duration_ms is not None:  # the runner knows better (a replayed call)
            slot.ms = result.duration_ms
        return result


async def _finished(slot: _Slot) -> ToolResult:
    assert slot.task is not None  # every call that was not refused got a task
    return await asyncio.shield(slot.task)  # our cancellation is handled in _cancel_rest


async def _cancel_rest(
    record: TurnRecord, spec: ToolRound, slots: list[_Slot], done: set[int], max_chars: int
) -> None:
    pending = [s.task for s in slots if s.task is not None and not s.task.done()]
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending)
    for index, slot in enumerate(slots):
        if index not in done and slot.known is None:
            if slot.task is not None and slot.task.done() and not slot.task.cancelled():
                result = slot.task.result()  # it finished; only its report was cut short
                _record(record, spec, slot, result.ok, result.content[:max_chars])
            else:
                _record(record, spec, slot, False, CANCELLED)


def _record(record: TurnRecord, spec: ToolRound, slot: _Slot, ok: bool, result: str) -> None:
    record.set_tool_call(
        slot.record_slot,
        ToolCallRecord(
            agent_key=spec.scope.agent_key, round=spec.round, call_id=slot.call.id,
            name=slot.call.name, arguments=slot.call.arguments, result=result, ok=ok,
            duration_ms=slot.ms, message_slot=spec.message_slot, approval=slot.approval,
            executed=slot.started is not None,
        ),
    )  # fmt: skip


def _call_event(spec: ToolRound, slot: _Slot) -> ToolCallEvent:
    return ToolCallEvent(
        turn_id=spec.turn_id, agent_key=spec.scope.agent_key, round=spec.round,
        call_id=slot.call.id, name=slot.call.name,
        arguments=slot.parsed.arguments, arguments_raw=slot.parsed.raw,
    )  # fmt: skip


def _approval_event(spec: ToolRound, slot: _Slot) -> ApprovalRequiredEvent:
    return ApprovalRequiredEvent(
        turn_id=spec.turn_id, agent_key=spec.scope.agent_key, round=spec.round,
        call_id=slot.call.id, name=slot.call.name,
        arguments=slot.parsed.arguments, arguments_raw=slot.parsed.raw,
    )  # fmt: skip


def _result_event(spec: ToolRound, slot: _Slot, ok: bool, content: str) -> ToolResultEvent:
    return ToolResultEvent(
        turn_id=spec.turn_id, agent_key=spec.scope.agent_key, round=spec.round,
        call_id=slot.call.id, name=slot.call.name, ok=ok, content=content,
        duration_ms=slot.ms,
    )  # fmt: skip
