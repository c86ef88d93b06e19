"""The one fold: a turn's record from its events (public and internal, in publish order).

Used for a turn whose process died (its ``TurnRecord`` died with it; its events did not:
journal, shared stream), and checked against the engine's own record for finished turns
of every mode (tests/turns_api/test_fold_equals_record.py). Every type of the catalogue is
either folded or ignored on purpose (``HANDLED`` / ``IGNORED``, checked by a test):

- each ``agent_started`` / ``synthesis_started`` takes the next message slot (turn
  order, as the engine reserves them); ``delta``s add to the speaker's text;
  ``agent_completed`` / ``synthesis_completed`` make it ``ok`` with the final text,
  ``agent_failed`` ``failed`` with its code and the text streamed before the failure;
- a speaker still open at the end keeps its text so far, status ``cancelled`` with
  error code ``interrupted`` (it reads ``<text> [interrupted]`` in the output);
- a pipeline stage taken over from an earlier turn (``stage_completed`` with
  ``reused``) is its message as that event carries it (it has no ``agent_started``);
- ``tool_call`` announces a tool call, linked to its speaker's message; the internal
  ``tool_call_record`` is what the engine recorded for it (arguments as written, result,
  approval) and wins; without one, ``tool_result`` gives it, and a call without either
  is ``ok=False``, result ``interrupted``; in a continuation a decided call carries its
  ``approval`` (it may have run before the events stopped);
- the internal ``llm_call`` is one LLM call at its place (``index``, start order): usage
  and cost survive the process (a call still running when it died has none);
- ``rounds`` is the last ``round_start``'s round, or 1 once the turn started.

What the events do not carry stays the engine's: ``resume_state`` (approvals), the
session ``summary``, ``context_dropped`` and the review's ``closing`` block.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    DeltaEvent,
    LLMCallEvent,
    RoundStartEvent,
    StageCompletedEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    ToolCallEvent,
    ToolCallRecordEvent,
    ToolResultEvent,
    TurnEvent,
    TurnStartedEvent,
)
from pantheon.engine.record import LLMCallRecord, ProducedMessage, ToolCallRecord, TurnRecord
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.engine.values import ApprovalStatus, MessageStatus, Mode, SpeakerRole
from pantheon.error_codes import ErrorCode

INTERRUPTED = "interrupted"
# The types the fold reads (``_Fold.apply``) and those it ignores on purpose: what they
# say is in other events (``agent_completed`` has the text the deltas built) or is no
# part of the record (routing, verdicts, the final event the layer above adds).
HANDLED = frozenset(
    {
        "turn_started", "round_start", "agent_started", "synthesis_started", "delta",
        "agent_completed", "synthesis_completed", "agent_failed", "stage_completed",
        "tool_call", "tool_result", "tool_call_record", "llm_call",
    }
)  # fmt: skip
IGNORED = frozenset(
    {
        "summary", "round_end", "routing", "approval_required", "evaluation",
        "stage_started", "review", "review_completed", "turn_completed", "error",
        "retrying",
    }
)  # fmt: skip


@dataclass(eq=False)
class _Speaking:
    slot: int
    role: SpeakerRole
    key: str
    name: str
    round: int | None
    texts: list[str] = field(default_factory=list)

    def message(
        self, status: MessageStatus, error_code: str | None, text: str | None = None
    ) -> ProducedMessage:
        content = "".join(self.texts) if text is None else text
        return ProducedMessage(
            self.role, self.key, self.name, self.round, content, status, error_code
        )


@dataclass(eq=False)
class _Rebuild:
    record: TurnRecord
    approvals: dict[str, ApprovalStatus]  # the decided calls not seen yet
    speaking: dict[str, _Speaking] = field(default_factory=dict)  # by agent key
    # Announced tool calls in event order: the call and its speaker's message slot.
    tools: dict[str, tuple[ToolCallEvent, int]] = field(default_factory=dict)
    results: dict[str, ToolResultEvent] = field(default_factory=dict)
    recorded: dict[str, ToolCallRecordEvent] = field(default_factory=dict)

    def start(self, role: SpeakerRole, key: str, name: str, round_: int | None) -> None:
        slot = self.record.reserve_message()
        self.speaking[key] = _Speaking(slot, role, key, name, round_)

    def end(self, key: str, status: MessageStatus, code: str | None, text: str | None) -> None:
        speaker = self.speaking.pop(key, None)
        if speaker is not None:
            self.record.set_message(speaker.slot, speaker.message(status, code, text))

    def tool_call(self, event: ToolCallEvent) -> None:
        speaker = self.speaking.get(event.agent_key)
        if speaker is not None:
            self.tools[event.call_id] = (event, speaker.slot)

    def llm_call(self, event: LLMCallEvent) -> None:
        while self.record.llm_slots <= event.index:
            self.record.reserve_call()
        fields = event.model_dump(exclude={"turn_id", "type", "index", "output"})
        self.record.set_call(event.index, LLMCallRecord(**fields, output=event.output))

    def tool_record(self, call: ToolCallEvent, message_slot: int) -> ToolCallRecord:
        """The call as the engine recorded it, else as its events tell."""
        known = self.recorded.get(call.call_id)
        if known is not None:
            fields = known.model_dump(exclude={"turn_id", "type", "index"})
            return ToolCallRecord(**fields, message_slot=message_slot)
        result = self.results.get(call.call_id)
        arguments = call.arguments_raw
        if arguments is None:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
        ok, text, ms = (result.ok, result.content, result.duration_ms) if result else (
            False, INTERRUPTED, 0
        )  # fmt: skip
        return ToolCallRecord(
            call.agent_key, call.round, call.call_id, call.name, arguments, text, ok, ms,
            message_slot, approval=self.approvals.get(call.call_id),
        )  # fmt: skip

    def close_tools(self) -> None:
        """The tool calls in the engine's order (``index``); a call it did not record
        stays right after the one announced before it."""
        ordered: list[tuple[float, int, str]] = []
        place = -1.0
        for position, call_id in enumerate(self.tools):
            known = self.recorded.get(call_id)
            place = float(known.index) if known is not None else place + 1e-6
            ordered.append((place, position, call_id))
        for _place, _position, call_id in sorted(ordered):
            call, message_slot = self.tools[call_id]
            self.record.set_tool_call(
                self.record.reserve_tool_call(), self.tool_record(call, message_slot)
            )

    def apply(self, event: TurnEvent) -> None:
        match event:
            case TurnStartedEvent():
                self.record.rounds = 1  # modes without rounds count one
            case RoundStartEvent(round=round_):
                self.record.rounds = round_
            case AgentStartedEvent(agent_key=key, agent_name=name, round=round_):
                self.start("assistant", key, name, round_)
            case SynthesisStartedEvent():
                self.start("manager", MANAGER_KEY, MANAGER_NAME, None)
            case DeltaEvent(agent_key=key, text=text) if key in self.speaking:
                self.speaking[key].texts.append(text)
            case AgentCompletedEvent(agent_key=key, text=text):
                self.end(key, "ok", None, text)
            case SynthesisCompletedEvent(text=text):
                self.end(MANAGER_KEY, "ok", None, text)
            case AgentFailedEvent(agent_key=key, code=code):
                self.end(key, "failed", code, None)
            case StageCompletedEvent(reused=True, agent_key=key, agent_name=name, text=text):
                message = ProducedMessage("assistant", key, name, None, text, reused=True)
                self.record.set_message(self.record.reserve_message(), message)
            case ToolCallEvent():
                self.tool_call(event)
            case ToolResultEvent(call_id=call_id):
                self.results[call_id] = event
            case ToolCallRecordEvent(call_id=call_id):
                self.recorded[call_id] = event
            case LLMCallEvent():
                self.llm_call(event)
            case _:  # IGNORED, or a delta of nobody speaking
                pass

    def close(self) -> TurnRecord:
        """Cut what was still under way when the events stopped."""
        self.close_tools()
        for key in list(self.speaking):
            self.end(key, "cancelled", ErrorCode.INTERRUPTED, None)
        return self.record


def rebuild_record(
    mode: Mode, events: Sequence[TurnEvent], approvals: Mapping[str, ApprovalStatus] | None = None
) -> TurnRecord:
    """The record the engine would have held after ``events`` (see the module docstring);
    ``approvals``: a continuation's decided calls, by call id."""
    rebuild = _Rebuild(TurnRecord(mode=mode), dict(approvals or {}))
    for event in events:
        rebuild.apply(event)
    return rebuild.close()
