"""One LLM call, streamed as deltas and recorded, whatever happens to it.

Promises: every call started here is in ``record.llm_calls`` (in start order) with its
timings (latency, time to first token), usage and cost, whether it ended, failed or was
cancelled (then usage is estimated from the prompt and the text so far). An ``LLMError``
sets ``outcome.status = "error"`` with the error's code; any other exception from the
gateway is logged and becomes ``internal_error``. Tool calls the model asked for are
collected in ``outcome.tool_calls``; the call's text streams as ``delta`` events. When the
prompt quotes data between framing markers, markers the model copies into its answer are
removed from the deltas and the text alike (``engine.framing``). Fencing (``llm/fence.py``):
every call carries the turn's ``fencing``; when the call fences something, the fence
markers and datamarks (``MARK`` becomes a space) the model copies are removed the same way.

Spend (``engine.spending``): before a call starts, the turn's guard must grant a hold of
the call's maximum cost, or of what is left of the limits when that still covers the
call's floor; then the call runs with ``max_tokens`` cut to what the hold affords. A
refused call never starts and is not an ``llm_calls`` entry: it ends ``error`` with code
``budget_exceeded``, and so does every later call of the turn (the remaining calls are
skipped). A granted hold is settled with the recorded cost
however the call ends; the settlement is shielded, so a second cancel cannot skip it.

Replay (docs/replay.md): each entry keeps the request's ``digest`` and the call's whole
``output`` (text parts as streamed, tool calls, how it ended). A call the gateway answers
from a record (``LLMGateway.replays``) asks the guard for nothing and is ``replayed``: it
keeps the recorded usage and cost (what the answer cost when it was made) but settles 0.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

from pantheon.engine.call_output import CallOutput, RecordedToolCall
from pantheon.engine.events import DeltaEvent, RetryingEvent
from pantheon.engine.framing import FramingFilter, frames_data
from pantheon.engine.record import LLMCallRecord, TurnRecord
from pantheon.engine.speakers import MANAGER_KEY, CallOutcome, estimate_usage
from pantheon.engine.spending import (
    FreeHold,
    NoSpendLimit,
    SpendGuard,
    SpendHold,
    call_cost,
)
from pantheon.error_codes import ErrorCode
from pantheon.llm.digest import request_digest
from pantheon.llm.errors import LLMError, UnknownModel
from pantheon.llm.fence import fences, unmark
from pantheon.llm.gateway import LLMGateway, closing_stream
from pantheon.llm.types import Fencing, LLMRequest, ModelAlias, Retrying, TextDelta, ToolCall, Usage

logger = logging.getLogger(__name__)
_SETTLING: set[asyncio.Future[None]] = set()


class CallRunner:
    """Streams single LLM calls as deltas and records every one of them."""

    def __init__(
        self,
        turn_id: str,
        gateway: LLMGateway,
        record: TurnRecord,
        spend: SpendGuard | None = None,
        fencing: Fencing | None = None,
    ) -> None:
        self.turn_id = turn_id
        self.fencing = fencing  # the turn's fence for untrusted text (llm/fence.py)
        self.gateway = gateway
        self.record = record
        self.spend: SpendGuard = spend or NoSpendLimit()
        self.out_of_budget = False  # once refused, the turn's remaining calls are skipped

    def alias(self, model: str) -> ModelAlias:
        """The alias, or a default stand-in when unknown (the call itself then fails)."""
        try:
            return self.gateway.registry.get(model)
        except UnknownModel:
            return ModelAlias(name=model)

    async def ask(self, request: LLMRequest, round_no: int | None) -> str | None:
        """A manager call read whole (a summary): its text, or ``None`` on failure."""
        outcome = await self.ask_outcome(request, round_no)
        return outcome.text if outcome.status == "ok" else None

    async def ask_outcome(self, request: LLMRequest, round_no: int | None) -> CallOutcome:
        """A manager call read whole (route, evaluate): its outcome, with the error code."""
        outcome = CallOutcome()
        async with closing_stream(self.stream(request, round_no, outcome)) as deltas:
            async for _ in deltas:
                pass
        return outcome

    async def stream(
        self, request: LLMRequest, round_no: int | None, outcome: CallOutcome
    ) -> AsyncIterator[DeltaEvent | RetryingEvent]:
        """The call's deltas (and a notice before each retry's wait); ``outcome`` holds its
        text, tool calls, usage and status."""
        if self.fencing is not None and request.fencing is None:
            request = replace(request, fencing=self.fencing)
        replayed = self.gateway.replays(request)
        hold = FreeHold(float("inf")) if replayed else await self._reserve(request, outcome)
        if hold is None:
            return
        cost = call_cost(request, self.alias(request.model))
        reply = cost.affordable_reply(hold.granted_usd)
        if reply is not None:  # a limit is near: the answer is cut to what the hold covers
            request = replace(request, max_tokens=reply)
        slot = self.record.reserve_call()
        started_at = datetime.now(UTC)
        start = time.perf_counter()
        first: float | None = None
        key = request.agent_key or MANAGER_KEY
        retries = 0
        fenced = fences(request)
        framing = FramingFilter() if fenced or frames_data(request.messages) else None
        unmarks = fenced and request.fencing is not None and request.fencing.datamark
        try:
            async with closing_stream(self.gateway.stream(request)) as items:
                async for item in items:
                    if isinstance(item, Usage):
                        outcome.usage = item
                    elif isinstance(item, ToolCall):
                        outcome.tool_calls.append(item)
                    elif isinstance(item, TextDelta):
                        first = time.perf_counter() if first is None else first
                        text = unmark(item.text) if unmarks else item.text
                        text = text if framing is None else framing.feed(text)
                        if text:
                            outcome.parts.append(text)
                            yield DeltaEvent(
                                turn_id=self.turn_id, agent_key=key, text=text, round=round_no
                            )
                    elif isinstance(item, Retrying):
                        yield _retrying(self.turn_id, key, item, round_no)
            if framing is not None and (rest := framing.flush()):
                outcome.parts.append(rest)
                yield DeltaEvent(turn_id=self.turn_id, agent_key=key, text=rest, round=round_no)
            outcome.status = "ok"
        except LLMError as err:
            outcome.status, outcome.error_code = "error", err.code
            retries = err.retries
            outcome.refusal = err.refusal
            logger.warning(
                "turn %s: %s call of %s failed: %s: %s",
                self.turn_id, request.purpose, key, err.code, err.message,
            )  # fmt: skip
        except Exception:
            outcome.status, outcome.error_code = "error", ErrorCode.INTERNAL_ERROR
            logger.exception("turn %s: %s call of %s crashed", self.turn_id, request.purpose, key)
        finally:
            ttft = None if first is None else _ms(first - start)
            call = self._call_record(request, round_no, outcome, started_at, start, ttft)
            call = replace(
                call,
                replayed=replayed,
                retries=outcome.usage.retries if outcome.usage else retries,
            )
            self.record.set_call(slot, call)
            await _settle(hold, 0.0 if replayed else call.cost_usd, self.turn_id)

    async def _reserve(self, request: LLMRequest, outcome: CallOutcome) -> SpendHold | None:
        """The call's hold, or ``None`` (``outcome`` says why) when it must not start."""
        hold: SpendHold | None = None
        if not self.out_of_budget:
            try:
                cost = call_cost(request, self.alias(request.model))
                hold = await self.spend.reserve(cost.max_usd, cost.floor_usd)
            except Exception:
                logger.exception("turn %s: the spend guard failed", self.turn_id)
                outcome.status, outcome.error_code = "error", ErrorCode.INTERNAL_ERROR
                return None
        if hold is None:
            self.out_of_budget = True
            outcome.status, outcome.error_code = "error", ErrorCode.BUDGET_EXCEEDED
            logger.info("turn %s: %s call skipped: budget", self.turn_id, request.purpose)
        return hold

    def _call_record(
        self,
        request: LLMRequest,
        round_no: int | None,
        outcome: CallOutcome,
        started_at: datetime,
        start: float,
        ttft_ms: int | None,
    ) -> LLMCallRecord:
        usage = outcome.usage or estimate_usage(request, outcome)
        return LLMCallRecord(
            purpose=request.purpose,
            model=request.model,
            agent_key=request.agent_key,
            round=round_no,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            usage_estimated=usage.estimated,
            latency_ms=_ms(time.perf_counter() - start),
            ttft_ms=ttft_ms,
            status=outcome.status,
            error_code=outcome.error_code,
            cost_usd=self.alias(request.model).cost_usd(usage),
            started_at=started_at,
            digest=request_digest(request),
            output=_output(outcome),
            upstream_model=self.alias(request.model).model or None,
            finish_reason=_finish_reason(outcome),
        )


def _output(outcome: CallOutcome) -> CallOutput:
    """The call's answer as recorded for a replay."""
    finish = "tool_calls" if outcome.tool_calls else "stop"
    if outcome.status != "ok":
        finish = outcome.status
    return CallOutput(
        parts=tuple(outcome.parts),
        tool_calls=tuple(
            RecordedToolCall(id=c.id, name=c.name, arguments=c.arguments)
            for c in outcome.tool_calls
        ),
        finish_reason=finish,
        refusal=outcome.refusal,
    )


async def _settle(hold: SpendHold, cost_usd: float, turn_id: str) -> None:
    """Settle in a task of its own: a cancel of the turn cannot interrupt the write (if
    the process dies instead, the hold expires, see docs/budgets.md)."""
    settling = asyncio.ensure_future(hold.settle(cost_usd))
    _SETTLING.add(settling)  # a strong reference, should our await be cancelled
    settling.add_done_callback(_SETTLING.discard)
    try:
        await asyncio.shield(settling)
    except Exception:
        logger.exception("turn %s: settling a spend hold failed", turn_id)


def _retrying(turn_id: str, key: str, item: Retrying, round_no: int | None) -> RetryingEvent:
    return RetryingEvent(
        turn_id=turn_id,
        agent_key=key,
        attempt=item.attempt,
        max_attempts=item.max_attempts,
        reason=item.code,
        delay_s=round(item.delay_s, 2),
        round=round_no,
    )


def _finish_reason(outcome: CallOutcome) -> str:
    """How the call ended as Pantheon saw it: ``stop``, ``tool_calls``, ``error``, ``cancelled``."""
    if outcome.status != "ok":
        return outcome.status
    return "tool_calls" if outcome.tool_calls else "stop"


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
