"""The one fold: a turn's record from its events (public and internal, in publish order).

Every turn is recorded from it (ADR 0038): a finished one from the log the live runner
published, one whose process died from what its journal or shared stream kept
(live/interrupted.py). It is a ``TurnReader``: the base places every type of the
catalogue and keeps who is speaking, with the text streamed so far and the message slot
each speaker takes (turn order, as the engine reserves them). On that:

- ``agent_completed`` / ``synthesis_completed`` make the speaker's message ``ok`` with
  the final text, ``agent_failed`` ``failed`` with its code and the text streamed before
  the failure; the internal ``message_record`` is a message no public event ends
  (``cancelled`` with the text so far, ``awaiting_approval``), as the engine set it;
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
- ``rounds`` is the last ``round_start``'s round, or 1 once the turn started;
- ``summary``'s ``dropped_messages`` is ``context_dropped``, the internal
  ``summary_record`` the session summary to store, ``review_completed`` the review's
  closing block and the internal ``resume_state`` what a paused turn's continuation
  needs (its status is then ``awaiting_approval``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    LLMCallEvent,
    MessageRecordEvent,
    ResumeStateEvent,
    ReviewCompletedEvent,
    RoundStartEvent,
    StageCompletedEvent,
    SummaryEvent,
    SummaryRecordEvent,
    SynthesisCompletedEvent,
    ToolCallEvent,
    ToolCallRecordEvent,
    ToolResultEvent,
    TurnEvent,
    TurnStartedEvent,
)
from pantheon.engine.modes.review_calls import Candidate, closing_text
from pantheon.engine.reader import OpenSpeaker, TurnReader
from pantheon.engine.record import LLMCallRecord, ProducedMessage, ToolCallRecord, TurnRecord
from pantheon.engine.snapshot import SessionSummary
from pantheon.engine.speakers import MANAGER_KEY
from pantheon.engine.values import ApprovalStatus, MessageStatus, Mode
from pantheon.error_codes import ErrorCode

INTERRUPTED = "interrupted"


class RecordFold(TurnReader[None]):
    """Feed it a turn's events; ``close`` gives the record (module docstring)."""

    def __init__(self, mode: Mode, approvals: Mapping[str, ApprovalStatus] | None = None) -> None:
        super().__init__()
        self.record = TurnRecord(mode=mode)
        self.approvals = dict(approvals or {})  # a continuation's decided calls, by call id
        # Announced tool calls in event order: the call and its speaker's message slot.
        self.tools: dict[str, tuple[ToolCallEvent, int]] = {}
        self.results: dict[str, ToolResultEvent] = {}
        self.recorded: dict[str, ToolCallRecordEvent] = {}

    def _message(self, slot: int, message: ProducedMessage) -> None:
        """Set the message of ``slot``, reserving the slots up to it (the base numbers them)."""
        while self.record.message_slots <= slot:
            self.record.reserve_message()
        self.record.set_message(slot, message)

    def _end(self, key: str, status: MessageStatus, code: str | None, text: str | None) -> None:
        speaker = self.open.get(key)  # still open: the base closes it after the hook
        if speaker is not None:
            self._message(speaker.slot, _produced(speaker, status, code, text))

    def on_turn_started(self, event: TurnStartedEvent) -> Iterable[None]:
        self.record.rounds = 1  # modes without rounds count one
        return ()

    def on_round_start(self, event: RoundStartEvent) -> Iterable[None]:
        self.record.rounds = event.round
        return ()

    def on_summary(self, event: SummaryEvent) -> Iterable[None]:
        self.record.context_dropped = event.dropped_messages
        return ()

    def on_summary_record(self, event: SummaryRecordEvent) -> Iterable[None]:
        self.record.summary = SessionSummary(
            event.text, event.through_turn_id, event.through_at, event.messages, event.updated_at
        )
        return ()

    def on_resume_state(self, event: ResumeStateEvent) -> Iterable[None]:
        self.record.resume_state = event.state
        return ()

    def on_review_completed(self, event: ReviewCompletedEvent) -> Iterable[None]:
        best = None if event.round is None else Candidate(event.round, event.text, event.score)
        self.record.closing = closing_text(best, event.reason)
        return ()

    def on_agent_completed(self, event: AgentCompletedEvent) -> Iterable[None]:
        self._end(event.agent_key, "ok", None, event.text)
        return ()

    def on_synthesis_completed(self, event: SynthesisCompletedEvent) -> Iterable[None]:
        self._end(MANAGER_KEY, "ok", None, event.text)  # a fallback's speaker already failed
        return ()

    def on_agent_failed(self, event: AgentFailedEvent) -> Iterable[None]:
        self._end(event.agent_key, "failed", event.code, None)
        return ()

    def on_message_record(self, event: MessageRecordEvent) -> Iterable[None]:
        self._end(event.agent_key, event.status, event.error_code, event.content)
        return ()

    def on_stage_completed(self, event: StageCompletedEvent) -> Iterable[None]:
        if event.reused:  # the base counted its slot: the last one
            message = ProducedMessage(
                "assistant", event.agent_key, event.agent_name, None, event.text, reused=True
            )
            self._message(self.slots - 1, message)
        return ()

    def on_tool_call(self, event: ToolCallEvent) -> Iterable[None]:
        speaker = self.open.get(event.agent_key)
        if speaker is not None:
            self.tools[event.call_id] = (event, speaker.slot)
        return ()

    def on_tool_result(self, event: ToolResultEvent) -> Iterable[None]:
        self.results[event.call_id] = event
        return ()

    def on_tool_call_record(self, event: ToolCallRecordEvent) -> Iterable[None]:
        self.recorded[event.call_id] = event
        return ()

    def on_llm_call(self, event: LLMCallEvent) -> Iterable[None]:
        while self.record.llm_slots <= event.index:
            self.record.reserve_call()
        fields = event.model_dump(exclude={"turn_id", "type", "index", "output"})
        self.record.set_call(event.index, LLMCallRecord(**fields, output=event.output))
        return ()

    def _tool_record(self, call: ToolCallEvent, message_slot: int) -> ToolCallRecord:
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

    def _close_tools(self) -> None:
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
                self.record.reserve_tool_call(), self._tool_record(call, message_slot)
            )

    def close(self) -> TurnRecord:
        """The record; what was still under way when the events stopped is cut."""
        self._close_tools()
        for speaker in self.open.values():
            self._message(
                speaker.slot, _produced(speaker, "cancelled", ErrorCode.INTERRUPTED, None)
            )
        self.open.clear()
        return self.record


def _produced(
    speaker: OpenSpeaker, status: MessageStatus, code: str | None, text: str | None
) -> ProducedMessage:
    content = speaker.text if text is None else text
    return ProducedMessage(
        speaker.role, speaker.key, speaker.name, speaker.round, content, status, code
    )


def rebuild_record(
    mode: Mode, events: Iterable[TurnEvent], approvals: Mapping[str, ApprovalStatus] | None = None
) -> TurnRecord:
    """The record of a turn from its ``events`` (see the module docstring); ``approvals``:
    a continuation's decided calls, by call id."""
    fold = RecordFold(mode, approvals)
    for event in events:
        fold.feed(event)
    return fold.close()
