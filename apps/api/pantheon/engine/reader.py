"""The one reader of a turn's stream: every door, fold and watcher subclasses ``TurnReader``.

``feed`` takes the typed events in publish order and dispatches each type exactly once
(an exhaustive ``match``: a new type of the catalogue fails mypy here until it has a
hook). Before the hook runs, the base keeps what every reader needs and used to keep for
itself: the turn's mode and agents, who is speaking (``open``: by agent key, with the text
streamed so far and the message slot it takes), the tool calls announced and not yet
answered (``pending_calls``), the decided or final state. A hook returns what its reader
makes of the event (SSE chunks, protocol events, text pieces); readers that only collect
return nothing. pydantic-ai's ``UIEventStream`` is the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar, assert_never

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
    TurnEvent,
    TurnStartedEvent,
)
from pantheon.engine.speakers import MANAGER_KEY, MANAGER_NAME
from pantheon.engine.values import SpeakerRole

Out = TypeVar("Out")


@dataclass(eq=False)
class OpenSpeaker:
    """A speaker between its start and its end: ``slot`` is the message it takes (0-based,
    in the order the engine reserves them), ``texts`` its deltas so far."""

    key: str
    name: str
    role: SpeakerRole
    round: int | None
    slot: int
    texts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.texts)


class TurnReader(Generic[Out]):
    """Feed it a turn's events in order; it returns what each one adds (module docstring).

    The bookkeeping is updated before the hook for events that open something (the hook
    sees the new speaker) and after it for events that close something (the hook still
    sees the speaker's text and slot)."""

    def __init__(self) -> None:
        self.turn_id = ""
        self.mode = ""
        self.agents: list[str] = []
        self.round: int | None = None  # the last round_start's
        self.open: dict[str, OpenSpeaker] = {}  # by agent key; the synthesis as "manager"
        self.slots = 0  # message slots taken (speakers started, reused stages)
        self.pending_calls: dict[str, ToolCallEvent] = {}  # announced, no result yet
        self.final: TurnCompletedEvent | ErrorEvent | None = None

    @property
    def finished(self) -> bool:
        return self.final is not None

    def feed(self, event: TurnEvent) -> list[Out]:
        """What ``event`` adds, its type dispatched once; the shared state kept up."""
        self.turn_id = event.turn_id
        if type(event) is DeltaEvent:
            # Most of a turn's events: one exact type check instead of the matches' class
            # patterns (``isinstance`` on a pydantic model costs ~0.5 us per case tried).
            speaker = self.open.get(event.agent_key)
            if speaker is not None:
                speaker.texts.append(event.text)
            return list(self.on_delta(event))
        self._opening(event)
        out = list(self._dispatch(event))
        self._closing(event)
        return out

    def feed_all(self, events: Iterable[TurnEvent]) -> list[Out]:
        return [item for event in events for item in self.feed(event)]

    def _opening(self, event: TurnEvent) -> None:
        match event:
            case TurnStartedEvent(mode=mode, agents=agents):
                self.mode, self.agents = mode, list(agents)
            case RoundStartEvent(round=round_):
                self.round = round_
            case AgentStartedEvent(agent_key=key, agent_name=name, round=round_):
                self._speak(key, name, "assistant", round_)
            case SynthesisStartedEvent():
                self._speak(MANAGER_KEY, MANAGER_NAME, "manager", None)
            case DeltaEvent(agent_key=key, text=text) if key in self.open:
                self.open[key].texts.append(text)
            case ToolCallEvent(call_id=call_id):
                self.pending_calls[call_id] = event
            case StageCompletedEvent(reused=True):
                self.slots += 1
            case TurnCompletedEvent() | ErrorEvent():
                self.final = event
            case _:
                pass

    def _closing(self, event: TurnEvent) -> None:
        match event:
            case (
                AgentCompletedEvent(agent_key=key)
                | AgentFailedEvent(agent_key=key)
                | MessageRecordEvent(agent_key=key)
            ):
                self.open.pop(key, None)
            case SynthesisCompletedEvent():
                self.open.pop(MANAGER_KEY, None)
            case ToolResultEvent(call_id=call_id) | ApprovalRequiredEvent(call_id=call_id):
                self.pending_calls.pop(call_id, None)
            case _:
                pass

    def _speak(self, key: str, name: str, role: SpeakerRole, round_: int | None) -> None:
        self.open[key] = OpenSpeaker(key, name, role, round_, self.slots)
        self.slots += 1

    def _dispatch(self, event: TurnEvent) -> Iterable[Out]:
        match event:
            case TurnStartedEvent():
                return self.on_turn_started(event)
            case SummaryEvent():
                return self.on_summary(event)
            case RoundStartEvent():
                return self.on_round_start(event)
            case RoundEndEvent():
                return self.on_round_end(event)
            case RoutingEvent():
                return self.on_routing(event)
            case AgentStartedEvent():
                return self.on_agent_started(event)
            case DeltaEvent():
                return self.on_delta(event)
            case AgentCompletedEvent():
                return self.on_agent_completed(event)
            case AgentFailedEvent():
                return self.on_agent_failed(event)
            case RetryingEvent():
                return self.on_retrying(event)
            case ToolCallEvent():
                return self.on_tool_call(event)
            case ToolResultEvent():
                return self.on_tool_result(event)
            case ApprovalRequiredEvent():
                return self.on_approval_required(event)
            case EvaluationEvent():
                return self.on_evaluation(event)
            case SynthesisStartedEvent():
                return self.on_synthesis_started(event)
            case SynthesisCompletedEvent():
                return self.on_synthesis_completed(event)
            case StageStartedEvent():
                return self.on_stage_started(event)
            case StageCompletedEvent():
                return self.on_stage_completed(event)
            case ReviewEvent():
                return self.on_review(event)
            case ReviewCompletedEvent():
                return self.on_review_completed(event)
            case TurnCompletedEvent():
                return self.on_turn_completed(event)
            case ErrorEvent():
                return self.on_error(event)
            case LLMCallEvent():
                return self.on_llm_call(event)
            case ToolCallRecordEvent():
                return self.on_tool_call_record(event)
            case MessageRecordEvent():
                return self.on_message_record(event)
            case SummaryRecordEvent():
                return self.on_summary_record(event)
            case ResumeStateEvent():
                return self.on_resume_state(event)
            case _:
                assert_never(event)

    # The hooks: each returns what its reader adds for the event (nothing by default).
    def on_turn_started(self, event: TurnStartedEvent) -> Iterable[Out]:
        return ()

    def on_summary(self, event: SummaryEvent) -> Iterable[Out]:
        return ()

    def on_round_start(self, event: RoundStartEvent) -> Iterable[Out]:
        return ()

    def on_round_end(self, event: RoundEndEvent) -> Iterable[Out]:
        return ()

    def on_routing(self, event: RoutingEvent) -> Iterable[Out]:
        return ()

    def on_agent_started(self, event: AgentStartedEvent) -> Iterable[Out]:
        return ()

    def on_delta(self, event: DeltaEvent) -> Iterable[Out]:
        return ()

    def on_agent_completed(self, event: AgentCompletedEvent) -> Iterable[Out]:
        return ()

    def on_agent_failed(self, event: AgentFailedEvent) -> Iterable[Out]:
        return ()

    def on_retrying(self, event: RetryingEvent) -> Iterable[Out]:
        return ()

    def on_tool_call(self, event: ToolCallEvent) -> Iterable[Out]:
        return ()

    def on_tool_result(self, event: ToolResultEvent) -> Iterable[Out]:
        return ()

    def on_approval_required(self, event: ApprovalRequiredEvent) -> Iterable[Out]:
        return ()

    def on_evaluation(self, event: EvaluationEvent) -> Iterable[Out]:
        return ()

    def on_synthesis_started(self, event: SynthesisStartedEvent) -> Iterable[Out]:
        return ()

    def on_synthesis_completed(self, event: SynthesisCompletedEvent) -> Iterable[Out]:
        return ()

    def on_stage_started(self, event: StageStartedEvent) -> Iterable[Out]:
        return ()

    def on_stage_completed(self, event: StageCompletedEvent) -> Iterable[Out]:
        return ()

    def on_review(self, event: ReviewEvent) -> Iterable[Out]:
        return ()

    def on_review_completed(self, event: ReviewCompletedEvent) -> Iterable[Out]:
        return ()

    def on_turn_completed(self, event: TurnCompletedEvent) -> Iterable[Out]:
        return ()

    def on_error(self, event: ErrorEvent) -> Iterable[Out]:
        return ()

    def on_llm_call(self, event: LLMCallEvent) -> Iterable[Out]:
        """Internal: only readers of the whole log (the record fold, traces) see it."""
        return ()

    def on_tool_call_record(self, event: ToolCallRecordEvent) -> Iterable[Out]:
        """Internal, as ``on_llm_call``."""
        return ()

    def on_message_record(self, event: MessageRecordEvent) -> Iterable[Out]:
        """Internal: a speaker stopped without an end event (cancelled, paused); the base
        closes it after the hook."""
        return ()

    def on_summary_record(self, event: SummaryRecordEvent) -> Iterable[Out]:
        """Internal, as ``on_llm_call``."""
        return ()

    def on_resume_state(self, event: ResumeStateEvent) -> Iterable[Out]:
        """Internal, as ``on_llm_call``."""
        return ()
