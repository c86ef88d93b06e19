"""One LLM call, streamed as events and recorded, whatever happens to it.

See ``modes/base.py`` for the promises; this module holds the bookkeeping: the streamed
call with its timings (latency, time to first token), usage and cost, and the
``finally`` blocks that keep the record consistent on cancellation.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

from pantheon.llm.errors import LLMError, UnknownModel
from pantheon.llm.gateway import LLMGateway, closing_stream
from pantheon.llm.types import ChatMessage, LLMRequest, ModelAlias, Purpose, TextDelta, Usage
from pantheon.turns.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    DeltaEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    TokenUsage,
    TurnEvent,
)
from pantheon.turns.modes.speakers import (
    MANAGER_KEY,
    MANAGER_NAME,
    CallOutcome,
    Speaker,
    SpeakerRun,
    estimate_usage,
    message_of,
    user_safe_message,
)
from pantheon.turns.record import (
    LLMCallRecord,
    TurnRecord,
)
from pantheon.turns.snapshot import AgentSnapshot

logger = logging.getLogger(__name__)


class CallRunner:
    """Prepares speakers, streams their calls as events and records every call."""

    def __init__(self, turn_id: str, gateway: LLMGateway, record: TurnRecord) -> None:
        self.turn_id = turn_id
        self.gateway = gateway
        self.record = record

    def alias(self, model: str) -> ModelAlias:
        """The alias, or a default stand-in when unknown (the call itself then fails)."""
        try:
            return self.gateway.registry.get(model)
        except UnknownModel:
            return ModelAlias(name=model)

    def prepare_agent(
        self, agent: AgentSnapshot, round_no: int | None, messages: tuple[ChatMessage, ...]
    ) -> SpeakerRun:
        request = LLMRequest(agent.model, messages, purpose="specialist", agent_key=agent.key)
        speaker = Speaker(agent.key, agent.name, "assistant", round_no)
        return SpeakerRun(speaker, request, self.record.reserve_message())

    def prepare_synthesis(self, model: str, messages: tuple[ChatMessage, ...]) -> SpeakerRun:
        request = LLMRequest(model, messages, purpose="synthesis", agent_key=MANAGER_KEY)
        speaker = Speaker(MANAGER_KEY, MANAGER_NAME, "manager", None)
        return SpeakerRun(speaker, request, self.record.reserve_message(), synthesis=True)

    async def speak(self, run: SpeakerRun) -> AsyncIterator[TurnEvent]:
        """Start event, deltas, end event; the message is recorded however it stops."""
        outcome = CallOutcome()
        try:
            yield self._started(run)
            stream = self._stream(run.request, run.speaker.round, outcome)
            async with closing_stream(stream) as deltas:
                async for delta in deltas:
                    yield delta
            yield self._finished(run, outcome)
        finally:
            run.message = message_of(run.speaker, outcome)
            self.record.set_message(run.slot, run.message)

    async def ask(self, request: LLMRequest, round_no: int | None) -> str | None:
        """A manager call read whole (route, evaluate): its text, or ``None`` on failure."""
        outcome = CallOutcome()
        async with closing_stream(self._stream(request, round_no, outcome)) as deltas:
            async for _ in deltas:
                pass
        return outcome.text if outcome.status == "ok" else None

    async def _stream(
        self, request: LLMRequest, round_no: int | None, outcome: CallOutcome
    ) -> AsyncIterator[DeltaEvent]:
        slot = self.record.reserve_call()
        started_at = datetime.now(UTC)
        start = time.perf_counter()
        first: float | None = None
        key = request.agent_key or MANAGER_KEY
        try:
            async with closing_stream(self.gateway.stream(request)) as items:
                async for item in items:
                    if isinstance(item, Usage):
                        outcome.usage = item
                        continue
                    if not isinstance(item, TextDelta):
                        continue  # no tools are offered to this call, so none come back
                    first = time.perf_counter() if first is None else first
                    outcome.parts.append(item.text)
                    yield DeltaEvent(
                        turn_id=self.turn_id, agent_key=key, text=item.text, round=round_no
                    )
            outcome.status = "ok"
        except LLMError as err:
            outcome.status, outcome.error_code = "error", err.code
            logger.warning(
                "turn %s: %s call of %s failed: %s: %s",
                self.turn_id,
                request.purpose,
                key,
                err.code,
                err.message,
            )
        except Exception:
            outcome.status, outcome.error_code = "error", "internal_error"
            logger.exception("turn %s: %s call of %s crashed", self.turn_id, request.purpose, key)
        finally:
            ms = _ms_since(start)
            ttft = None if first is None else int((first - start) * 1000)
            self.record.set_call(
                slot, self._call_record(request, round_no, outcome, started_at, ms, ttft)
            )

    def _call_record(
        self,
        request: LLMRequest,
        round_no: int | None,
        outcome: CallOutcome,
        started_at: datetime,
        latency_ms: int,
        ttft_ms: int | None,
    ) -> LLMCallRecord:
        usage = outcome.usage or estimate_usage(request, outcome)
        purpose: Purpose = request.purpose
        return LLMCallRecord(
            purpose=purpose,
            model=request.model,
            agent_key=request.agent_key,
            round=round_no,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            usage_estimated=usage.estimated,
            latency_ms=latency_ms,
            ttft_ms=ttft_ms,
            status=outcome.status,
            error_code=outcome.error_code,
            cost_usd=self.alias(request.model).cost_usd(usage),
            started_at=started_at,
        )

    def _started(self, run: SpeakerRun) -> TurnEvent:
        if run.synthesis:
            return SynthesisStartedEvent(turn_id=self.turn_id)
        s = run.speaker
        return AgentStartedEvent(
            turn_id=self.turn_id, agent_key=s.key, agent_name=s.name, round=s.round
        )

    def _finished(self, run: SpeakerRun, outcome: CallOutcome) -> TurnEvent:
        s = run.speaker
        if outcome.status != "ok":
            code = outcome.error_code or "llm_error"
            return AgentFailedEvent(
                turn_id=self.turn_id,
                agent_key=s.key,
                error=user_safe_message(code),
                code=code,
                round=s.round,
            )
        if run.synthesis:
            return SynthesisCompletedEvent(turn_id=self.turn_id, text=outcome.text)
        usage = outcome.usage or Usage()
        tokens = TokenUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
        return AgentCompletedEvent(
            turn_id=self.turn_id, agent_key=s.key, text=outcome.text, usage=tokens, round=s.round
        )


def _ms_since(start: float) -> int:
    return int((time.perf_counter() - start) * 1000)
