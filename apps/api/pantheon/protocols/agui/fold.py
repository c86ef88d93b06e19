"""A turn's typed events -> the AG-UI 1.0 events of its run: a reader (docs/ag-ui.md).

The room is the AG-UI agent; every agent invocation of the turn is a subagent of it
(``SUBAGENT_STARTED`` .. ``SUBAGENT_FINISHED`` / ``SUBAGENT_ERROR``) that writes one
assistant text message under its name, so concurrent specialists are interleaved
messages, each attributed (``name`` and ``subagentRunId``) and closed on its own. The
manager's synthesis is the room's own message. Rounds, routing, evaluations, the
synthesis and pipeline stages are steps; tool calls are ``TOOL_CALL_*``; usage is a
``CUSTOM`` event per agent and the run's ``usage``; gated calls become the interrupts of
``RUN_FINISHED``. Whatever is still open when the turn ends is closed first, so a client
never sees a run end with a message, step or subagent open.

``TurnReader`` dispatches each type once and keeps who speaks; every public type has its
hook here (checked by tests/engine/test_catalogue.py), the internal ones add nothing.
"""

from __future__ import annotations

import json

from ag_ui.core import (
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    ApprovalRequiredEvent,
    DeltaEvent,
    ErrorEvent,
    EvaluationEvent,
    RetryingEvent,
    ReviewCompletedEvent,
    ReviewEvent,
    RoundEndEvent,
    RoundStartEvent,
    RoutingEvent,
    StageCompletedEvent,
    StageStartedEvent,
    SummaryEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnCompletedEvent,
    TurnStartedEvent,
)
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.protocols.agui.ids import tool_message_id
from pantheon.protocols.agui.outcome import approval_interrupt
from pantheon.protocols.agui.parts import USAGE_EVENT, Out, RunParts, custom, dumped

__all__ = ["USAGE_EVENT", "RunFold"]


class RunFold(RunParts):
    """Feed it the turn's events in order; it returns the AG-UI events each one adds."""

    def on_turn_started(self, event: TurnStartedEvent) -> Out:
        return custom("pantheon.turn_started", event)

    def on_summary(self, event: SummaryEvent) -> Out:
        return custom("pantheon.summary", event)

    def on_round_start(self, event: RoundStartEvent) -> Out:
        out = self.open_step(f"round {event.round}")
        if self.uses_manager:  # the manager routes the round now; routing closes the step
            out += self.open_step(f"routing {event.round}")
        return out

    def on_routing(self, event: RoutingEvent) -> Out:
        return self.close_step(f"routing {event.round}", **dumped(event))

    def on_round_end(self, event: RoundEndEvent) -> Out:
        return self.close_step(f"round {event.round}")

    def on_evaluation(self, event: EvaluationEvent) -> Out:
        name = f"evaluation {event.round}"
        return [*self.open_step(name), *self.close_step(name, **dumped(event))]

    def on_agent_started(self, event: AgentStartedEvent) -> Out:
        out = self.open_step(f"round {event.round}") if event.round is not None else []
        meta = {"agent_key": event.agent_key, "round": event.round}
        return out + self.speak(self.open[event.agent_key], **meta)

    def on_delta(self, event: DeltaEvent) -> Out:
        speaker = self.open.get(event.agent_key)
        return [] if speaker is None else self.write(speaker, event.text)

    def on_agent_completed(self, event: AgentCompletedEvent) -> Out:
        usage = event.usage.model_dump()
        out = self.finish_speaker(event.agent_key, event.text, {"usage": usage})
        return [*out, self.usage("agent", agent_key=event.agent_key, **usage)]

    def on_agent_failed(self, event: AgentFailedEvent) -> Out:
        speaker = self.open.get(event.agent_key)
        name = speaker.name if speaker is not None else event.agent_key
        self.failures.append(f"{name} failed: {event.error}")
        out = self.fail_speaker(event.agent_key, event.error, event.code)
        if event.agent_key == MANAGER_KEY:  # the synthesis failed: its step ends with it
            out += self.close_step("synthesis", **dumped(event))
        return [*out, *custom("pantheon.agent_failed", event)]

    def on_retrying(self, event: RetryingEvent) -> Out:
        return custom("pantheon.retrying", event)

    def on_tool_call(self, event: ToolCallEvent) -> Out:
        if event.call_id in self.resumed_calls:  # announced in the interrupted run
            return []
        speaker = self.open.get(event.agent_key)
        parent = {} if speaker is None else {"parent_message_id": self.message_of(speaker)}
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

    def on_tool_result(self, event: ToolResultEvent) -> Out:
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

    def on_approval_required(self, event: ApprovalRequiredEvent) -> Out:
        speaker = self.open.get(event.agent_key)
        name = speaker.name if speaker is not None else event.agent_key
        self.interrupts.append(approval_interrupt(event, name))
        if speaker is not None:
            self.suspended.setdefault(event.agent_key, []).append(event.call_id)
        return []

    def on_synthesis_started(self, event: SynthesisStartedEvent) -> Out:
        return [*self.open_step("synthesis"), *self.speak(self.open[MANAGER_KEY])]

    def on_synthesis_completed(self, event: SynthesisCompletedEvent) -> Out:
        if event.fallback:  # the synthesis failed: the specialists' outputs are the answer
            ident = self.next_message()
            start = TextMessageStartEvent(message_id=ident, role="assistant", name=MANAGER_NAME)
            text = [TextMessageContentEvent(message_id=ident, delta=event.text)]
            return [
                start,
                *(text if event.text else []),
                TextMessageEndEvent(message_id=ident),
                *custom("pantheon.synthesis_fallback", event),
            ]
        return [*self.finish_speaker(MANAGER_KEY, event.text), *self.close_step("synthesis")]

    def on_stage_started(self, event: StageStartedEvent) -> Out:
        return self.open_step(f"stage {event.stage}", **dumped(event))

    def on_stage_completed(self, event: StageCompletedEvent) -> Out:
        out: Out = []
        if event.reused:  # taken over from the last pipeline turn: its output, as recorded
            ident = self.reused_message()
            meta = {"pantheon": {"agent_key": event.agent_key, "reused": True}}
            out += [
                TextMessageStartEvent(
                    message_id=ident, role="assistant", name=event.agent_name, metadata=meta
                ),
                TextMessageContentEvent(message_id=ident, delta=event.text),
                TextMessageEndEvent(message_id=ident),
            ]
        return out + self.close_step(f"stage {event.stage}", ok=event.ok)

    def on_review(self, event: ReviewEvent) -> Out:
        return custom("pantheon.review", event)

    def on_review_completed(self, event: ReviewCompletedEvent) -> Out:
        return custom("pantheon.review_completed", event)

    def on_turn_completed(self, event: TurnCompletedEvent) -> Out:
        return self.completed(event)

    def on_error(self, event: ErrorEvent) -> Out:
        return self.error(event.message, event.code)
