"""What a turn produced, accumulated while it runs, so that even a cancelled turn's partial
output can be persisted.

Promises:
- ``messages`` are in *turn order*, not finish order: the engine reserves a slot for each
  speaker when it decides who speaks (routing order within a round, rounds in order,
  synthesis last) and fills it when the speaker stops. A speaker that never started
  (cancelled before its first step) leaves no message.
- Every LLM call that was started is in ``llm_calls`` (route, specialist, evaluate,
  synthesis), in start order, including failed and cancelled ones. A cancelled call's
  usage is estimated from the prompt and the text produced so far
  (``usage_estimated=True``).
- ``tool_calls`` are in the order they were announced (``tool_call`` events), each
  linked to its speaker's message by ``message_index`` (an index into ``messages``).
  A call still running when the turn was cancelled is recorded ``ok=False`` with
  ``result="cancelled"``.
- ``status``: ``"awaiting_approval"`` when ``resume_state`` is set (an agent paused for
  a person's approval); else ``"failed"`` when no agent message (nor a synthesis)
  succeeded; ``"partial"`` when some message (an agent or the synthesis) failed or was
  cancelled; else ``"completed"``.
  Failed route/evaluate calls do not degrade the status (the engine falls back and says
  so with ``fallback=true``). ``"cancelled"`` is decided by the layer above.
- ``output`` is the turn's text, formatted as in the seed.
- With an ``outbox`` (the live runner gives one), what the public events do not say is
  also appended there as internal events (``engine/internal_events.py``) for the layer
  above to publish, journal and store: each LLM call and tool call once set, a message
  set ``cancelled`` or ``awaiting_approval`` (no end event says it), the session's new
  summary (``keep_summary``) and the resume state (``pause``). The turn's record is then
  the fold of its events (``engine/fold.py``), finished or interrupted (ADR 0038); this
  accumulator stays the engine's working state (slots in turn order, the outbox).

  Modes whose spec's ``output`` is ``rounds`` (orchestrator)::

      [Round 1]
      Alice: <text>

      Bob: [failed: timeout]

      [Round 2]
      Carol: <text>

      Manager synthesis:
      <text>

  ``stages`` (pipeline): see ``engine/output_text.py``; review is ``rounds`` too, then its
  ``closing`` block: the answer and why the loop stopped.

  ``speakers`` (the other modes): ``<Agent name>: <text>`` blocks separated by one blank
  line. Everywhere a failed speaker reads ``[failed: <code>]`` and a cancelled one ``<text so far>
  [cancelled]`` (``[interrupted]`` when its error code says the process running the turn
  died: live/interrupted.py); the synthesis block is omitted when there was no synthesis.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any

from pantheon.engine.approvals import ResumeState
from pantheon.engine.call_output import CallOutput
from pantheon.engine.events import (
    InternalEvent,
    LLMCallEvent,
    MessageRecordEvent,
    ResumeStateEvent,
    SummaryRecordEvent,
    ToolCallRecordEvent,
    TurnUsage,
)
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.output_text import message_line, pipeline_output, rounds_output
from pantheon.engine.snapshot import SessionSummary
from pantheon.engine.values import (
    ApprovalStatus,
    CallStatus,
    MessageStatus,
    Mode,
    Purpose,
    RecordStatus,
    SpeakerRole,
)

# Message statuses no public event announces: the outbox gets a ``message_record``.
_UNANNOUNCED: frozenset[MessageStatus] = frozenset({"cancelled", "awaiting_approval"})


@dataclass(frozen=True, slots=True)
class ProducedMessage:
    role: SpeakerRole
    agent_key: str
    agent_name: str
    round: int | None
    content: str
    status: MessageStatus = "ok"
    error_code: str | None = None
    # A pipeline stage taken over from an earlier turn (``rerun_from``), not run again.
    reused: bool = False


@dataclass(frozen=True, slots=True)
class LLMCallRecord:
    purpose: Purpose
    model: str
    agent_key: str | None
    round: int | None
    input_tokens: int
    output_tokens: int
    usage_estimated: bool
    latency_ms: int
    ttft_ms: int | None
    status: CallStatus
    error_code: str | None
    cost_usd: float
    started_at: datetime
    # What a replay needs to serve the call again (``LLMCallEvent``), and whether it was
    # itself served from a record (nothing paid).
    digest: str | None = None
    output: CallOutput | None = None
    replayed: bool = False
    # The upstream's model name, the failed attempts retried before the call's end, and
    # how it ended (``stop``, ``tool_calls``, ``error``, ``cancelled``): for traces.
    upstream_model: str | None = None
    retries: int = 0
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call: ``arguments`` is the JSON text as the model wrote it; ``round`` is
    the speaker's tool round (1-based, counted per agent over the whole turn)."""

    agent_key: str
    round: int
    call_id: str
    name: str
    arguments: str
    result: str
    ok: bool
    duration_ms: int
    message_slot: int
    message_index: int | None = None
    approval: ApprovalStatus | None = None  # None: the tool needs no approval
    executed: bool | None = None  # the runner was called (None: not known, older record)


@dataclass(eq=False)
class TurnRecord:
    """The mutable accumulator the engine fills; read it once the engine has stopped."""

    mode: Mode | None = None
    rounds: int = 0
    # The review mode's closing block of ``output``: the best draft and why it stopped.
    closing: str | None = None
    # The session summary to persist with the turn (a fold succeeded), and how many
    # history messages were left out of this turn's prompts unsummarised.
    summary: SessionSummary | None = None
    context_dropped: int = 0
    # Set when an agent paused for approval: what the continuation needs (ADR 0015).
    resume_state: ResumeState | None = None
    turn_id: str = ""
    # Where set calls go as internal events (None: nobody reads them, e.g. the fold).
    outbox: list[InternalEvent] | None = None
    _messages: list[ProducedMessage | None] = field(default_factory=list, init=False, repr=False)
    _calls: list[LLMCallRecord | None] = field(default_factory=list, init=False, repr=False)
    _tools: list[ToolCallRecord | None] = field(default_factory=list, init=False, repr=False)

    # -- filled by the engine -------------------------------------------------------------
    def reserve_message(self) -> int:
        """A slot fixing this speaker's place in ``messages`` before it starts."""
        self._messages.append(None)
        return len(self._messages) - 1

    @property
    def message_slots(self) -> int:
        """How many message slots were reserved (set or not)."""
        return len(self._messages)

    def set_message(self, slot: int, message: ProducedMessage) -> None:
        self._messages[slot] = message
        if self.outbox is not None and message.status in _UNANNOUNCED:
            event = MessageRecordEvent(
                turn_id=self.turn_id, agent_key=message.agent_key, status=message.status,
                error_code=message.error_code, content=message.content,
            )  # fmt: skip
            self.outbox.append(event)

    def keep_summary(self, summary: SessionSummary | None) -> None:
        """The session's new summary, stored with the turn."""
        self.summary = summary
        if self.outbox is not None and summary is not None:
            fields_ = {item.name: getattr(summary, item.name) for item in fields(summary)}
            self.outbox.append(SummaryRecordEvent(turn_id=self.turn_id, **fields_))

    def pause(self, state: ResumeState) -> None:
        """An agent paused for approval: what the continuation needs."""
        self.resume_state = state
        if self.outbox is not None:
            self.outbox.append(ResumeStateEvent(turn_id=self.turn_id, state=state))

    def reserve_call(self) -> int:
        self._calls.append(None)
        return len(self._calls) - 1

    @property
    def llm_slots(self) -> int:
        """How many LLM call slots were reserved (set or not)."""
        return len(self._calls)

    def set_call(self, slot: int, call: LLMCallRecord) -> None:
        self._calls[slot] = call
        if self.outbox is not None:
            self.outbox.append(LLMCallEvent(turn_id=self.turn_id, index=slot, **_fields(call)))

    def reserve_tool_call(self) -> int:
        self._tools.append(None)
        return len(self._tools) - 1

    def set_tool_call(self, slot: int, call: ToolCallRecord) -> None:
        self._tools[slot] = call
        if self.outbox is not None:
            values = _fields(call)
            del values["message_slot"], values["message_index"]  # the fold links by call id
            self.outbox.append(ToolCallRecordEvent(turn_id=self.turn_id, index=slot, **values))

    # -- read by the layer above ----------------------------------------------------------
    @property
    def messages(self) -> list[ProducedMessage]:
        return [m for m in self._messages if m is not None]

    @property
    def llm_calls(self) -> list[LLMCallRecord]:
        return [c for c in self._calls if c is not None]

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Recorded calls whose speaker left a message, with ``message_index`` filled."""
        index_of: dict[int, int] = {}
        for slot, message in enumerate(self._messages):
            if message is not None:
                index_of[slot] = len(index_of)
        return [
            replace(call, message_index=index_of[call.message_slot])
            for call in self._tools
            if call is not None and call.message_slot in index_of
        ]

    @property
    def status(self) -> RecordStatus:
        if self.resume_state is not None:
            return "awaiting_approval"
        messages = self.messages
        # A retry of the synthesis alone (ADR 0034) has only the manager's message; a
        # synthesis never runs without some agent message that succeeded otherwise.
        if not any(m.status == "ok" for m in messages):
            return "failed"
        if any(m.status != "ok" for m in messages):
            return "partial"
        return "completed"

    def usage(self) -> TurnUsage:
        calls = self.llm_calls
        return TurnUsage(
            input_tokens=sum(c.input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            cost_usd=sum(c.cost_usd for c in calls),
        )

    @property
    def output(self) -> str:
        messages = self.messages
        shape = mode_spec(self.mode).output if self.mode is not None else "speakers"
        if shape == "stages":
            return pipeline_output(messages)
        if shape == "rounds":
            return "\n\n".join([*rounds_output(messages), *filter(None, [self.closing])])
        return "\n\n".join(message_line(m) for m in messages)


def _fields(record: LLMCallRecord | ToolCallRecord) -> dict[str, Any]:
    """The record's fields, shared, not copied: records and their outputs are frozen, and
    ``asdict`` would deep-copy every call's output once per call."""
    return {item.name: getattr(record, item.name) for item in fields(record)}
