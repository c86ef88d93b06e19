"""A turn's record rebuilt from its published events, for a turn whose process died.

The engine's ``TurnRecord`` lived in the dead process; its events did not (journal,
shared stream). They hold every speaker's text as it streamed, so the record is rebuilt
from them with the engine's own types, and the recorder writes it as for any turn:

- each ``agent_started`` / ``synthesis_started`` takes the next message slot (turn
  order, as the engine reserves them); ``delta``s add to the speaker's text;
  ``agent_completed`` / ``synthesis_completed`` make it ``ok`` with the final text,
  ``agent_failed`` ``failed`` with its code and the text streamed before the failure;
- a speaker still open at the end keeps its text so far, status ``cancelled`` with
  error code ``interrupted`` (it reads ``<text> [interrupted]`` in the output);
- a pipeline stage taken over from an earlier turn (``stage_completed`` with
  ``reused``) is its message as that event carries it (it has no ``agent_started``);
- ``tool_call`` / ``tool_result`` become tool calls linked to their speaker's message; a
  call without its result is ``ok=False``, result ``interrupted``; in a continuation a
  decided call carries its ``approval`` (it may have run before the events stopped);
- ``rounds`` is the last ``round_start``'s round, or 1 once the turn started;
- LLM calls (and so usage and cost) are not rebuilt: the events do not carry them.
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
    RoundStartEvent,
    StageCompletedEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnStartedEvent,
)
from pantheon.engine.record import ProducedMessage, ToolCallRecord, TurnRecord
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.engine.values import ApprovalStatus, MessageStatus, Mode, SpeakerRole
from pantheon.error_codes import ErrorCode

INTERRUPTED = "interrupted"


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
    tools: dict[str, tuple[int, ToolCallEvent, int]] = field(default_factory=dict)

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
            self.tools[event.call_id] = (self.record.reserve_tool_call(), event, speaker.slot)

    def tool_result(self, call_id: str, ok: bool, result: str, duration_ms: int) -> None:
        pending = self.tools.pop(call_id, None)
        if pending is None:
            return
        slot, call, message_slot = pending
        arguments = call.arguments_raw
        if arguments is None:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
        self.record.set_tool_call(
            slot,
            ToolCallRecord(
                call.agent_key, call.round, call.call_id, call.name, arguments, result,
                ok, duration_ms, message_slot, approval=self.approvals.pop(call_id, None),
            ),
        )  # fmt: skip

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
            case ToolResultEvent(call_id=call_id, ok=ok, content=content, duration_ms=ms):
                self.tool_result(call_id, ok, content, ms)
            case _:
                pass

    def close(self) -> TurnRecord:
        """Cut what was still under way when the events stopped."""
        for call_id in list(self.tools):
            self.tool_result(call_id, False, INTERRUPTED, 0)
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
