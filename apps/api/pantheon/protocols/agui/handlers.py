"""What each event of the catalogue adds to an AG-UI run (``RunFold``, fold.py).

One function per event type, in ``table()``; ``None`` marks a type that adds nothing on
purpose (its content comes with another event, or it is internal and never streamed).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from pydantic import BaseModel

from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    ApprovalRequiredEvent,
    DeltaEvent,
    ErrorEvent,
    EvaluationEvent,
    LLMCallEvent,
    MessageRecordEvent,
    ResumeStateEvent,
    RetryingEvent,
    ReviewCompletedEvent,
    ReviewEvent,
    RoundEndEvent,
    RoundStartEvent,
    RoutingEvent,
    StageCompletedEvent,
    StageStartedEvent,
    SummaryEvent,
    SummaryRecordEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    ToolCallEvent,
    ToolCallRecordEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnStartedEvent,
    type_name,
)
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.protocols.agui.ids import message_id, tool_message_id
from pantheon.protocols.agui.outcome import approval_interrupt

if TYPE_CHECKING:
    from pantheon.protocols.agui.fold import RunFold

Out = list[BaseEvent]


def dumped(event: BaseModel) -> dict[str, Any]:
    """An engine event's fields without ``type`` and ``turn_id`` (for metadata)."""
    data: dict[str, Any] = json.loads(event.model_dump_json(by_alias=True))
    return {k: v for k, v in data.items() if k not in ("type", "turn_id")}


def _custom(name: str, event: BaseModel) -> Out:
    return [CustomEvent(name=name, value=dumped(event))]


def turn_started(fold: RunFold, event: TurnStartedEvent) -> Out:
    fold.mode = event.mode
    return _custom("pantheon.turn_started", event)


def summary(fold: RunFold, event: SummaryEvent) -> Out:
    return _custom("pantheon.summary", event)


def round_start(fold: RunFold, event: RoundStartEvent) -> Out:
    out = fold.open_step(f"round {event.round}")
    if fold.uses_manager:  # the manager routes the round now; routing closes the step
        out += fold.open_step(f"routing {event.round}")
    return out


def routing(fold: RunFold, event: RoutingEvent) -> Out:
    return fold.close_step(f"routing {event.round}", **dumped(event))


def round_end(fold: RunFold, event: RoundEndEvent) -> Out:
    return fold.close_step(f"round {event.round}")


def evaluation(fold: RunFold, event: EvaluationEvent) -> Out:
    name = f"evaluation {event.round}"
    return [*fold.open_step(name), *fold.close_step(name, **dumped(event))]


def agent_started(fold: RunFold, event: AgentStartedEvent) -> Out:
    out = fold.open_step(f"round {event.round}") if event.round is not None else []
    meta = {"agent_key": event.agent_key, "round": event.round}
    return out + fold.speak(event.agent_key, event.agent_name, subagent=True, **meta)


def delta(fold: RunFold, event: DeltaEvent) -> Out:
    return fold.write(event.agent_key, event.text)


def agent_completed(fold: RunFold, event: AgentCompletedEvent) -> Out:
    usage = event.usage.model_dump()
    out = fold.finish_speaker(event.agent_key, event.text, {"usage": usage})
    return [*out, fold.usage("agent", agent_key=event.agent_key, **usage)]


def agent_failed(fold: RunFold, event: AgentFailedEvent) -> Out:
    speaker = fold.speaking.get(event.agent_key)
    name = speaker.name if speaker is not None else event.agent_key
    fold.failures.append(f"{name} failed: {event.error}")
    out = fold.fail_speaker(event.agent_key, event.error, event.code)
    if event.agent_key == MANAGER_KEY:  # the synthesis failed: its step ends with it
        out += fold.close_step("synthesis", **dumped(event))
    return [*out, *_custom("pantheon.agent_failed", event)]


def tool_call(fold: RunFold, event: ToolCallEvent) -> Out:
    if event.call_id in fold.resumed_calls:  # announced in the interrupted run
        return []
    speaker = fold.speaking.get(event.agent_key)
    parent = {} if speaker is None else {"parent_message_id": speaker.message_id}
    arguments = event.arguments_raw
    if arguments is None:
        arguments = json.dumps(event.arguments, ensure_ascii=False)
    meta = {"pantheon": {"agent_key": event.agent_key, "round": event.round}}
    return [
        ToolCallStartEvent(
            tool_call_id=event.call_id, tool_call_name=event.name, metadata=meta, **parent
        ),
        ToolCallArgsEvent(tool_call_id=event.call_id, delta=arguments),
        ToolCallEndEvent(tool_call_id=event.call_id),
    ]


def tool_result(fold: RunFold, event: ToolResultEvent) -> Out:
    meta = {"pantheon": {"ok": event.ok, "duration_ms": event.duration_ms, "name": event.name}}
    return [
        ToolCallResultEvent(
            message_id=tool_message_id(event.turn_id, event.call_id),
            tool_call_id=event.call_id,
            content=event.content,
            role="tool",
            metadata=meta,
        )
    ]


def approval_required(fold: RunFold, event: ApprovalRequiredEvent) -> Out:
    speaker = fold.speaking.get(event.agent_key)
    name = speaker.name if speaker is not None else event.agent_key
    fold.interrupts.append(approval_interrupt(event, name))
    if speaker is not None:
        speaker.interrupts.append(event.call_id)
    return []


def synthesis_started(fold: RunFold, _event: SynthesisStartedEvent) -> Out:
    return fold.manager_speaks()


def synthesis_completed(fold: RunFold, event: SynthesisCompletedEvent) -> Out:
    if event.fallback:  # the synthesis failed: the specialists' outputs are the answer
        return [
            *fold.speak(MANAGER_KEY, MANAGER_NAME, subagent=False),
            *fold.write(MANAGER_KEY, event.text),
            *fold.finish_speaker(MANAGER_KEY),
            *_custom("pantheon.synthesis_fallback", event),
        ]
    return [*fold.finish_speaker(MANAGER_KEY, event.text), *fold.close_step("synthesis")]


def stage_started(fold: RunFold, event: StageStartedEvent) -> Out:
    return fold.open_step(f"stage {event.stage}", **dumped(event))


def stage_completed(fold: RunFold, event: StageCompletedEvent) -> Out:
    out: Out = []
    if event.reused:  # taken over from the last pipeline turn: its output, as recorded
        fold.slots += 1
        ident = message_id(event.turn_id, fold.slots)
        meta = {"pantheon": {"agent_key": event.agent_key, "reused": True}}
        out += [
            TextMessageStartEvent(
                message_id=ident, role="assistant", name=event.agent_name, metadata=meta
            ),
            TextMessageContentEvent(message_id=ident, delta=event.text),
            TextMessageEndEvent(message_id=ident),
        ]
    return out + fold.close_step(f"stage {event.stage}", ok=event.ok)


def retrying(fold: RunFold, event: RetryingEvent) -> Out:
    return _custom("pantheon.retrying", event)


def review(fold: RunFold, event: ReviewEvent) -> Out:
    return _custom("pantheon.review", event)


def review_completed(fold: RunFold, event: ReviewCompletedEvent) -> Out:
    return _custom("pantheon.review_completed", event)


def turn_completed(fold: RunFold, event: TurnCompletedEvent) -> Out:
    return fold.completed(event)


def error(fold: RunFold, event: ErrorEvent) -> Out:
    return fold.error(event.message, event.code)


def table() -> dict[str, Callable[[RunFold, Any], Out] | None]:
    """Every event type of the catalogue and what folds it (``None``: nothing to add:
    the internal ones are never streamed)."""
    by_model: dict[Any, Callable[[RunFold, Any], Out] | None] = {
        TurnStartedEvent: turn_started,
        SummaryEvent: summary,
        RoundStartEvent: round_start,
        RoundEndEvent: round_end,
        RoutingEvent: routing,
        AgentStartedEvent: agent_started,
        DeltaEvent: delta,
        AgentCompletedEvent: agent_completed,
        AgentFailedEvent: agent_failed,
        RetryingEvent: retrying,
        ToolCallEvent: tool_call,
        ToolResultEvent: tool_result,
        ApprovalRequiredEvent: approval_required,
        EvaluationEvent: evaluation,
        SynthesisStartedEvent: synthesis_started,
        SynthesisCompletedEvent: synthesis_completed,
        StageStartedEvent: stage_started,
        StageCompletedEvent: stage_completed,
        ReviewEvent: review,
        ReviewCompletedEvent: review_completed,
        TurnCompletedEvent: turn_completed,
        ErrorEvent: error,
        LLMCallEvent: None,
        ToolCallRecordEvent: None,
        MessageRecordEvent: None,
        SummaryRecordEvent: None,
        ResumeStateEvent: None,
    }
    return {type_name(model): handler for model, handler in by_model.items()}
