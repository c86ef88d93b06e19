"""A turn's spans as a fold over its events (the one catalogue), in the GenAI conventions.

Pure: no OpenTelemetry import. The turn span is the root (under the caller's span when
a ``traceparent`` came in); ``invoke_agent`` spans open at ``agent_started`` and close at
the agent's end; each internal ``llm_call`` is a ``chat`` span (its own start and
latency) under its agent, or under the manager step (``route``, ``evaluate``,
``synthesize``, ``summarize``) that the next routing / evaluation / synthesis / summary
event closes; each ``tool_call_record`` is an ``execute_tool`` span under its agent.
An agent's calls and tools may be published before its ``agent_started`` (agents of
a round run side by side; internal events go out as they settle), so they wait for it.
Events without a clock reading (a turn recorded ``interrupted`` elsewhere) take the time
of the latest call settled before them. Spans still open at the end close with it,
marked with the turn's end (``error.type``: ``cancelled``, ``interrupted`` ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pantheon.engine import events as ev
from pantheon.engine.reader import TurnReader
from pantheon.error_codes import ErrorCode
from pantheon.live.observers.turn_metrics import call_outcome, tool_outcome
from pantheon.observability.spans import AttrValue, SpanData
from pantheon.observability.trace_context import TurnTrace, new_span_id
from pantheon.tools.names import SERVER_SEPARATOR

# The manager's steps: the event that ends each, and the call purposes under it.
_STEPS: dict[str, tuple[str, frozenset[str]]] = {
    "routing": ("route", frozenset({"route"})),
    "evaluation": ("evaluate", frozenset({"evaluate"})),
    "synthesis_completed": ("synthesize", frozenset({"synthesis"})),
    "summary": ("summarize", frozenset({"summary"})),
}
_MANAGER_PURPOSES = frozenset().union(*(purposes for _, purposes in _STEPS.values()))
_ERROR_STATUSES = frozenset({"failed", "cancelled", "interrupted", "error"})


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What the fold needs besides the events."""

    trace: TurnTrace
    turn_id: str
    session_id: str
    mode: str
    message: str
    start_ns: int
    end_ns: int
    status: str  # the final event's, or ``interrupted``
    capture_content: bool = False


def _ns(event: ev.LLMCallEvent) -> tuple[int, int]:
    start = int(event.started_at.timestamp() * 1_000_000_000)
    return start, start + event.latency_ms * 1_000_000


def _content(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


class _SpanFold(TurnReader[None]):
    """A ``TurnReader``: its hooks open and close the spans; the agents' spans are its own
    (the base's open speakers end with their events, a span may wait for its agent)."""

    def __init__(self, facts: TurnFacts) -> None:
        super().__init__()
        self.facts = facts
        self.spans: list[SpanData] = []
        self.agent_spans: dict[str, SpanData] = {}
        self.pending: list[tuple[str, SpanData]] = []  # manager calls awaiting their step
        self.early: dict[str, list[SpanData]] = {}  # an agent's spans before it started
        self.step_start: int | None = None  # a round's or the synthesis's beginning
        self.now = facts.start_ns
        self.status = facts.status
        self.root = facts.trace.span_id

    def apply(self, event: ev.TurnEvent, at: int | None) -> None:
        """Feed ``event``; ``at`` is its clock reading (an ``llm_call`` carries its own)."""
        if at is not None and not isinstance(event, ev.LLMCallEvent):
            self.now = max(self.now, at)
        self.feed(event)

    def on_llm_call(self, event: ev.LLMCallEvent) -> Iterable[None]:
        self._chat(event)
        return ()

    def on_agent_started(self, event: ev.AgentStartedEvent) -> Iterable[None]:
        self._agent_started(event)
        return ()

    def on_agent_completed(self, event: ev.AgentCompletedEvent) -> Iterable[None]:
        self._agent_ended(event)
        return ()

    def on_agent_failed(self, event: ev.AgentFailedEvent) -> Iterable[None]:
        self._agent_ended(event)
        return ()

    def on_approval_required(self, event: ev.ApprovalRequiredEvent) -> Iterable[None]:
        self._agent_ended(event)
        return ()

    def on_tool_call_record(self, event: ev.ToolCallRecordEvent) -> Iterable[None]:
        self._tool(event)
        return ()

    def on_round_start(self, event: ev.RoundStartEvent) -> Iterable[None]:
        self.step_start = self.now
        return ()

    def on_synthesis_started(self, event: ev.SynthesisStartedEvent) -> Iterable[None]:
        self.step_start = self.now
        return ()

    def on_routing(self, event: ev.RoutingEvent) -> Iterable[None]:
        self._step(event)
        return ()

    def on_evaluation(self, event: ev.EvaluationEvent) -> Iterable[None]:
        self._step(event)
        return ()

    def on_synthesis_completed(self, event: ev.SynthesisCompletedEvent) -> Iterable[None]:
        self._step(event)
        return ()

    def on_summary(self, event: ev.SummaryEvent) -> Iterable[None]:
        self._step(event)
        return ()

    def on_turn_completed(self, event: ev.TurnCompletedEvent) -> Iterable[None]:
        self.status = event.status
        return ()

    def on_error(self, event: ev.ErrorEvent) -> Iterable[None]:
        self.status = "error" if self.status != "interrupted" else self.status
        return ()

    def _chat(self, event: ev.LLMCallEvent) -> None:
        start, end = _ns(event)
        self.now = max(self.now, end)
        attrs: dict[str, AttrValue] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": event.upstream_model or event.model,
            "pantheon.model.alias": event.model,
            "pantheon.llm.purpose": event.purpose,
            "pantheon.llm.outcome": call_outcome(event),
            "gen_ai.usage.input_tokens": event.input_tokens,
            "gen_ai.usage.output_tokens": event.output_tokens,
            "pantheon.llm.usage_estimated": event.usage_estimated,
            "pantheon.llm.cost_usd": event.cost_usd,
            "pantheon.llm.retries": event.retries,
            "pantheon.llm.latency_ms": event.latency_ms,
        }
        if event.upstream_model:
            attrs["gen_ai.response.model"] = event.upstream_model
        if event.ttft_ms is not None:
            attrs["pantheon.llm.ttft_ms"] = event.ttft_ms
        if event.finish_reason:
            attrs["gen_ai.response.finish_reasons"] = [event.finish_reason]
        if event.round is not None:
            attrs["pantheon.round"] = event.round
        error = event.error_code if event.status == "error" else None
        span = SpanData(
            f"chat {event.model}", new_span_id(), self.root, start, end, attrs, error, "client"
        )
        if event.purpose in _MANAGER_PURPOSES:
            self.pending.append((event.purpose, span))
        elif event.agent_key is not None:
            self._under_agent(event.agent_key, span)
        self.spans.append(span)

    def _under_agent(self, key: str, span: SpanData) -> None:
        agent = self.agent_spans.get(key)
        if agent is not None:
            span.parent_id = agent.span_id
        else:
            self.early.setdefault(key, []).append(span)

    def _agent_started(self, event: ev.AgentStartedEvent) -> None:
        attrs: dict[str, AttrValue] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": event.agent_name,
            "gen_ai.agent.id": event.agent_key,
        }
        if event.round is not None:
            attrs["pantheon.round"] = event.round
        name = f"invoke_agent {event.agent_name}"
        span = SpanData(name, new_span_id(), self.root, self.now, self.now, attrs)
        for early in self.early.pop(event.agent_key, []):
            early.parent_id = span.span_id
            span.start_ns = min(span.start_ns, early.start_ns)
        self.agent_spans[event.agent_key] = span

    def _agent_ended(
        self, event: ev.AgentCompletedEvent | ev.AgentFailedEvent | ev.ApprovalRequiredEvent
    ) -> None:
        span = self.agent_spans.pop(event.agent_key, None)
        if span is None:  # the manager's failed synthesis
            if isinstance(event, ev.AgentFailedEvent) and self.step_start is not None:
                self._close_step("synthesize", frozenset({"synthesis"}), {}, event.code)
            return
        span.end_ns = self.now
        if isinstance(event, ev.AgentCompletedEvent):
            span.attributes["gen_ai.usage.input_tokens"] = event.usage.input_tokens
            span.attributes["gen_ai.usage.output_tokens"] = event.usage.output_tokens
            if self.facts.capture_content:
                span.attributes["gen_ai.output.messages"] = _content("assistant", event.text)
        elif isinstance(event, ev.AgentFailedEvent):
            span.error = event.code
        else:
            span.attributes["pantheon.agent.outcome"] = "awaiting_approval"
        self.spans.append(span)

    def _tool(self, event: ev.ToolCallRecordEvent) -> None:
        server, sep, _ = event.name.partition(SERVER_SEPARATOR)
        outcome = tool_outcome(event)
        attrs: dict[str, AttrValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
            "gen_ai.tool.call.id": event.call_id,
            "gen_ai.tool.type": "function",
            "pantheon.tool.server": server if sep else "builtin",
            "pantheon.tool.outcome": outcome,
            "pantheon.tool.duration_ms": event.duration_ms,
        }
        if self.facts.capture_content:
            attrs["gen_ai.tool.call.arguments"] = event.arguments
            attrs["gen_ai.tool.call.result"] = event.result
        start = self.now - event.duration_ms * 1_000_000
        error = "tool_error" if outcome == "error" else None
        name = f"execute_tool {event.name}"
        span = SpanData(name, new_span_id(), self.root, start, self.now, attrs, error)
        self._under_agent(event.agent_key, span)
        self.spans.append(span)

    def _step(self, event: ev.TurnEvent) -> None:
        name, purposes = _STEPS[event.type]
        attrs: dict[str, AttrValue] = {}
        error = None
        if isinstance(event, ev.RoutingEvent | ev.EvaluationEvent):
            attrs["pantheon.round"] = event.round
            attrs["pantheon.manager.fallback"] = event.fallback
            if event.fallback and event.reason:
                attrs["pantheon.manager.fallback_reason"] = event.reason
        if isinstance(event, ev.RoutingEvent):
            attrs["pantheon.routing.agents"] = list(event.agents)
        elif isinstance(event, ev.EvaluationEvent):
            attrs["pantheon.evaluation.continue"] = event.continue_
        elif isinstance(event, ev.SummaryEvent):
            attrs["pantheon.summary.folded_messages"] = event.folded_messages
            error = None if event.ok else event.code or ErrorCode.SUMMARY_FAILED
        elif isinstance(event, ev.SynthesisCompletedEvent) and self.facts.capture_content:
            attrs["gen_ai.output.messages"] = _content("assistant", event.text)
        self._close_step(name, purposes, attrs, error)

    def _close_step(
        self, name: str, purposes: frozenset[str], attrs: dict[str, AttrValue], error: str | None
    ) -> None:
        calls = [span for purpose, span in self.pending if purpose in purposes]
        self.pending = [(p, span) for p, span in self.pending if p not in purposes]
        start = min([span.start_ns for span in calls] + [self.now])
        if name in ("route", "synthesize") and self.step_start is not None:
            start = min(start, self.step_start)
        attrs = {"gen_ai.operation.name": "invoke_agent", "pantheon.manager.step": name, **attrs}
        step = SpanData(name, new_span_id(), self.root, start, self.now, attrs, error)
        for call in calls:
            call.parent_id = step.span_id
        self.spans.append(step)
        if name in ("route", "synthesize"):
            self.step_start = None

    def finish(self) -> list[SpanData]:
        end = max(self.now, self.facts.end_ns)
        ended = self.status if self.status in _ERROR_STATUSES else "turn_ended"
        for span in self.agent_spans.values():  # agents the end cut short
            span.end_ns, span.error = end, ended
            self.spans.append(span)
        self.agent_spans.clear()
        return [self._turn_span(end), *self.spans]

    def _turn_span(self, end: int) -> SpanData:
        facts = self.facts
        attrs: dict[str, AttrValue] = {
            "pantheon.turn.id": facts.turn_id,
            "pantheon.turn.mode": facts.mode,
            "pantheon.turn.status": self.status,
            "pantheon.session.id": facts.session_id,
            "gen_ai.conversation.id": facts.session_id,
        }
        if facts.trace.room_id is not None:
            attrs["pantheon.room.id"] = facts.trace.room_id
        if facts.capture_content:
            attrs["gen_ai.input.messages"] = _content("user", facts.message)
        error = self.status if self.status in _ERROR_STATUSES else None
        parent = facts.trace.parent_span_id
        return SpanData(f"turn {facts.mode}", self.root, parent, facts.start_ns, end, attrs, error)


def turn_spans(
    facts: TurnFacts, events: Sequence[tuple[ev.TurnEvent, int | None]]
) -> list[SpanData]:
    """The turn's spans, root first: ``events`` in publish order, each with its clock
    reading in ns (``None`` when unknown)."""
    fold = _SpanFold(facts)
    for event, at in events:
        fold.apply(event, at)
    return fold.finish()
