"""The SSE event catalogue: one pydantic model per event, a union discriminated on ``type``.

Every event carries ``type`` and ``turn_id``; the SSE layer adds ``id: <seq>``.

The models below are THE catalogue: every event type is defined once, here.
``docs/sse.md`` lists the public ones (tests/engine/test_catalogue.py checks it against
these models, field for field), and ``engine/fold.py`` is the one interpretation of a
turn's events as its record.

Internal events (``INTERNAL_TYPES``, defined in ``engine/internal_events.py``:
``llm_call``, ``tool_call_record``, ``message_record``, ``summary_record``,
``resume_state``) say what the turn's record holds that clients are not shown: each LLM
call as it settled (usage, cost, timings), each tool call as recorded (the model's
argument text, the approval), a speaker's message no public event ends (cancelled,
paused), the session's new summary and an approval's resume state. They get no ``seq``,
are never streamed, followed, replayed nor mirrored to clients; they go to the crash
journal, the Redis stream (for a dead turn's recorder) and the stored event log (its
internal part): the fold records every turn from its events alone (ADR 0038).

Notes:
- ``round`` is the orchestrator round or the review round (1-based) and ``null`` in the
  other modes.
- Pipeline: ``stage`` is 1-based in roster order. A reused stage (``rerun_from``) has
  ``reused=true``, no agent events and no LLM call between its ``stage_started`` and
  ``stage_completed``; ``text`` is the stage's output (empty when ``ok`` is false). A
  failed stage's ``stage_completed`` (``ok=false``) is the pipeline's last.
- Review: ``review.score`` is 0-10 or ``null``; ``fallback=true`` when the reviewer's
  answer could not be read as a verdict (or its call failed): it counts as not approved.
  ``review_completed`` names the best-scored draft's ``round`` (``null`` when no draft
  succeeded), its mean ``score`` (``null`` when no review was readable), why the loop
  stopped (``reason``: ``approved`` | ``max_rounds`` | ``no_gain`` | ``draft_failed``) and
  the draft's ``text``: the turn's answer.
- ``routing`` / ``evaluation`` / ``synthesis_completed`` with ``fallback=true`` say why
  in ``reason`` (the failed manager call's code: ``unavailable``, ``timeout`` ..., or
  ``bad_json``) and name the manager's ``model``; both are left out when the manager
  decided. A failed synthesis is ``agent_failed`` for ``manager``, then the fallback
  ``synthesis_completed`` (``fallback`` sent only then): its ``text`` is the
  specialists' outputs as written (``fallback_answer``); it records nothing.
- ``agent_failed.error`` is a short user-safe sentence, ``code`` the machine code
  (``rate_limited``, ``unavailable``, ``timeout``, ``bad_request``, ``unknown_model``,
  ``internal_error`` ...); raw provider or exception text never appears, except the
  upstream's reason for refusing a request as invalid (cleaned, bounded).
- ``usage`` on ``agent_completed`` is ``{"input_tokens", "output_tokens"}``; on
  ``turn_completed`` it also has ``cost_usd``.
- ``retrying``: a call of ``agent_key`` (``manager`` for the synthesis) failed with the
  retryable error code ``reason`` before any text; the gateway waits ``delay_s`` seconds
  and makes attempt ``attempt`` of ``max_attempts``. Nothing is recorded for it.
- ``tool_call.round`` / ``tool_result.round`` is the speaker's tool round (1-based,
  counted per agent over the turn), not the orchestrator round. ``arguments`` is always
  an object: when the model's argument text is not a JSON object it is ``{}`` and
  ``arguments_raw`` holds the text as written (else ``arguments_raw`` is ``null``).
  ``tool_result.content`` is at most ``tools.max_result_chars`` (4,000) characters.
- ``approval_required`` replaces the ``tool_result`` of a call to a tool whose entry
  ends in ``!``; that agent stops there (no ``agent_completed``) and the turn ends
  ``awaiting_approval``. ``turn_started.continues`` names the paused turn in a
  continuation (else ``null``); there the decided calls are announced again
  (``tool_call``) before their ``tool_result``. ``turn_started.retries`` (sent only
  then) names the orchestrator turn a retry re-runs failed agents of (ADR 0034).
- ``evaluation`` serialises its flag as ``"continue"`` (the Python attribute is
  ``continue_``); always dump with ``by_alias=True``, as ``event_to_json`` does.
- ``summary``: the session's older history no longer fitted the turn's models, so the
  manager folded ``folded_messages`` of it into the session summary (``text``, covering
  ``summary_messages`` messages in all). ``ok=false`` (with the failed call's ``code``):
  a summary call failed; ``dropped_messages`` were left out of this turn's prompts
  instead (also when ``context.summary_max_calls`` ran out). The turn goes on either way.
- The engine never emits ``turn_completed`` nor ``error``: the layer above does, after
  the commit (or when the turn could not run).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    AliasChoices,
    Field,
    TypeAdapter,
    model_serializer,
)

from pantheon.engine.event_parts import EventBase as _Event
from pantheon.engine.event_parts import TokenUsage as TokenUsage
from pantheon.engine.event_parts import TurnUsage as TurnUsage
from pantheon.engine.event_parts import quiet_fields
from pantheon.engine.internal_events import InternalEvent as InternalEvent
from pantheon.engine.internal_events import LLMCallEvent as LLMCallEvent
from pantheon.engine.internal_events import MessageRecordEvent as MessageRecordEvent
from pantheon.engine.internal_events import ResumeStateEvent as ResumeStateEvent
from pantheon.engine.internal_events import SummaryRecordEvent as SummaryRecordEvent
from pantheon.engine.internal_events import ToolCallRecordEvent as ToolCallRecordEvent
from pantheon.engine.values import Mode, ReviewStop


class TurnStartedEvent(_Event):
    quiet: ClassVar[tuple[str, ...]] = ("retries",)
    type: Literal["turn_started"] = "turn_started"
    session_id: str
    mode: Mode
    agents: list[str]
    continues: str | None = None
    retries: str | None = None

    _wire = model_serializer(mode="wrap")(quiet_fields)


class SummaryEvent(_Event):
    type: Literal["summary"] = "summary"
    ok: bool
    folded_messages: int
    dropped_messages: int
    summary_messages: int
    text: str | None = None
    code: str | None = None


class RoundStartEvent(_Event):
    type: Literal["round_start"] = "round_start"
    round: int


class RoundEndEvent(_Event):
    type: Literal["round_end"] = "round_end"
    round: int


class RoutingEvent(_Event):
    quiet: ClassVar[tuple[str, ...]] = ("reason", "model")
    type: Literal["routing"] = "routing"
    round: int
    agents: list[str]
    fallback: bool = False
    reason: str | None = None
    model: str | None = None

    _wire = model_serializer(mode="wrap")(quiet_fields)


class AgentStartedEvent(_Event):
    type: Literal["agent_started"] = "agent_started"
    agent_key: str
    agent_name: str
    round: int | None = None


class DeltaEvent(_Event):
    type: Literal["delta"] = "delta"
    agent_key: str
    text: str
    round: int | None = None


class AgentCompletedEvent(_Event):
    type: Literal["agent_completed"] = "agent_completed"
    agent_key: str
    text: str
    usage: TokenUsage
    round: int | None = None


class AgentFailedEvent(_Event):
    type: Literal["agent_failed"] = "agent_failed"
    agent_key: str
    error: str
    code: str
    round: int | None = None


class RetryingEvent(_Event):
    type: Literal["retrying"] = "retrying"
    agent_key: str
    attempt: int
    max_attempts: int
    reason: str
    delay_s: float
    round: int | None = None


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    agent_key: str
    round: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    arguments_raw: str | None = None


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    agent_key: str
    round: int
    call_id: str
    name: str
    ok: bool
    content: str
    duration_ms: int


class ApprovalRequiredEvent(_Event):
    type: Literal["approval_required"] = "approval_required"
    agent_key: str
    round: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    arguments_raw: str | None = None


class EvaluationEvent(_Event):
    quiet: ClassVar[tuple[str, ...]] = ("reason", "model")
    type: Literal["evaluation"] = "evaluation"
    round: int
    continue_: bool = Field(
        serialization_alias="continue",
        validation_alias=AliasChoices("continue", "continue_"),
    )
    fallback: bool = False
    reason: str | None = None
    model: str | None = None

    _wire = model_serializer(mode="wrap")(quiet_fields)


class SynthesisStartedEvent(_Event):
    type: Literal["synthesis_started"] = "synthesis_started"


class SynthesisCompletedEvent(_Event):
    quiet: ClassVar[tuple[str, ...]] = ("fallback", "reason", "model")
    type: Literal["synthesis_completed"] = "synthesis_completed"
    text: str
    fallback: bool = False
    reason: str | None = None
    model: str | None = None

    _wire = model_serializer(mode="wrap")(quiet_fields)


class StageStartedEvent(_Event):
    type: Literal["stage_started"] = "stage_started"
    stage: int
    agent_key: str
    agent_name: str
    reused: bool = False


class StageCompletedEvent(_Event):
    type: Literal["stage_completed"] = "stage_completed"
    stage: int
    agent_key: str
    agent_name: str
    reused: bool = False
    ok: bool = True
    text: str = ""


class ReviewEvent(_Event):
    type: Literal["review"] = "review"
    round: int
    agent_key: str
    approved: bool
    score: float | None = None
    feedback: str = ""
    fallback: bool = False


class ReviewCompletedEvent(_Event):
    type: Literal["review_completed"] = "review_completed"
    round: int | None
    score: float | None
    reason: ReviewStop
    text: str


class TurnCompletedEvent(_Event):
    type: Literal["turn_completed"] = "turn_completed"
    status: str
    usage: TurnUsage
    message_ids: list[str]
    error_code: str | None = None


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    code: str
    message: str


TurnEvent = Annotated[
    TurnStartedEvent
    | SummaryEvent
    | RoundStartEvent
    | RoundEndEvent
    | RoutingEvent
    | AgentStartedEvent
    | DeltaEvent
    | AgentCompletedEvent
    | AgentFailedEvent
    | RetryingEvent
    | ToolCallEvent
    | ToolResultEvent
    | ApprovalRequiredEvent
    | EvaluationEvent
    | SynthesisStartedEvent
    | SynthesisCompletedEvent
    | StageStartedEvent
    | StageCompletedEvent
    | ReviewEvent
    | ReviewCompletedEvent
    | TurnCompletedEvent
    | ErrorEvent
    | LLMCallEvent
    | ToolCallRecordEvent
    | MessageRecordEvent
    | SummaryRecordEvent
    | ResumeStateEvent,
    Field(discriminator="type"),
]

EVENT_MODELS: tuple[type[_Event], ...] = get_args(get_args(TurnEvent)[0])


def type_name(model: type[_Event]) -> str:
    """The ``type`` value of an event model."""
    name: str = model.model_fields["type"].default
    return name


EVENT_TYPES: frozenset[str] = frozenset(type_name(m) for m in EVENT_MODELS)
INTERNAL_TYPES: frozenset[str] = frozenset(type_name(m) for m in EVENT_MODELS if m.internal)
PUBLIC_TYPES: frozenset[str] = EVENT_TYPES - INTERNAL_TYPES


def event_to_json(event: TurnEvent) -> str:
    """Compact JSON with wire names (``continue``), as sent in SSE ``data:`` lines."""
    return event.model_dump_json(by_alias=True)


_ADAPTER: TypeAdapter[TurnEvent] = TypeAdapter(TurnEvent)


def event_from_json(data: str | bytes) -> TurnEvent:
    """The typed event of its stored or mirrored JSON text (the one way back from text)."""
    return _ADAPTER.validate_json(data)
