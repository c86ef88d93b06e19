"""The internal events of the catalogue: what a turn's record holds that clients are not
shown (``engine/events.py`` puts them in the one ``TurnEvent`` union).

Each one is set by the engine's ``TurnRecord`` as it records (its ``outbox``), published
by the live runner without a ``seq`` and folded into the turn's record by
``engine/fold.py``, for a finished turn and an interrupted one alike (ADR 0038):

- ``llm_call``: one LLM call as it settled (usage, cost, timings, what a replay serves);
- ``tool_call_record``: one tool call as recorded (the model's argument text, approval);
- ``message_record``: a speaker's message that no public event ends (cancelled with its
  text so far, or paused for an approval);
- ``summary_record``: the session's new summary, to store with the turn;
- ``resume_state``: what a continuation of a turn paused for approval needs.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pantheon.engine.approvals import ResumeState
from pantheon.engine.call_output import CallOutput
from pantheon.engine.event_parts import EventBase
from pantheon.engine.values import ApprovalStatus, CallStatus, MessageStatus, Purpose


class LLMCallEvent(EventBase):
    """Internal: one LLM call settled (ok, error or cancelled with estimated usage); the
    record's ``llm_calls`` entry number ``index`` (start order, 0-based). ``digest``
    (``llm/digest.py``) and ``output`` let a replay serve it again (``None`` in turns
    recorded before they were kept); ``replayed``: it was served from a record, nothing
    was paid."""

    internal: ClassVar[bool] = True
    type: Literal["llm_call"] = "llm_call"
    index: int
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
    digest: str | None = None
    output: CallOutput | None = None
    replayed: bool = False
    upstream_model: str | None = None
    retries: int = 0
    finish_reason: str | None = None


class ToolCallRecordEvent(EventBase):
    """Internal: one tool call as recorded (``tool_calls`` entry number ``index``, in
    announcement order): the model's argument text as written, the recorded result,
    the approval; also for calls that got no ``tool_result`` (held, cancelled).
    ``executed``: the tool runner was called (else the engine refused or held the call);
    ``None`` in turns recorded before it was kept."""

    internal: ClassVar[bool] = True
    type: Literal["tool_call_record"] = "tool_call_record"
    index: int
    agent_key: str
    round: int
    call_id: str
    name: str
    arguments: str
    result: str
    ok: bool
    duration_ms: int
    approval: ApprovalStatus | None = None
    executed: bool | None = None


class MessageRecordEvent(EventBase):
    """Internal: the message of the speaker ``agent_key`` (``manager``: the synthesis) as
    recorded when it stopped without an end event of its own: ``cancelled`` (its
    ``content`` is the text so far, which may hold a piece no ``delta`` carried yet) or
    ``awaiting_approval``. A speaker still open without one was interrupted."""

    internal: ClassVar[bool] = True
    type: Literal["message_record"] = "message_record"
    agent_key: str
    status: MessageStatus
    error_code: str | None = None
    content: str


class SummaryRecordEvent(EventBase):
    """Internal: the session summary the turn folded its older history into (the public
    ``summary`` event says what happened; this is what to store: ``engine/snapshot.py``
    ``SessionSummary``)."""

    internal: ClassVar[bool] = True
    type: Literal["summary_record"] = "summary_record"
    text: str
    through_turn_id: str
    through_at: datetime
    messages: int
    updated_at: datetime


class ResumeStateEvent(EventBase):
    """Internal: an agent paused for a person's approval; ``state`` is what the
    continuation needs (stored on the turn, ``turns.resume_state``, ADR 0015)."""

    internal: ClassVar[bool] = True
    type: Literal["resume_state"] = "resume_state"
    state: ResumeState


InternalEvent = (
    LLMCallEvent | ToolCallRecordEvent | MessageRecordEvent | SummaryRecordEvent | ResumeStateEvent
)
