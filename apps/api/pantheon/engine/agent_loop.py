"""One speaker from start to end: call the model, run the tool calls it asks for, feed the
results back and call it again, within the turn's tool limits.

Promises (SPEC "Agents that act: tools"):
- ``agent_started`` (or ``synthesis_started``) first; then the ``delta``s of every call of
  the loop, and each tool round's ``tool_call`` / ``tool_result`` events; then
  ``agent_completed`` whose ``text`` is all the text streamed and whose ``usage`` sums
  the calls (or ``synthesis_completed``), or ``agent_failed`` when a call failed, or
  with code ``empty_answer`` when the calls ended but no text came at all (blank text
  counts as none); the message is then ``failed``, like any failed agent.
- A call carries the agent's tools while the agent has tool rounds left
  (``tools.max_rounds``) and the turn has calls left (``tools.max_calls_per_turn``); at
  a cap the next call is the last one and carries none. Tool calls in an answer to a
  call without tools are ignored.
- After a tool round the messages get the assistant's tool-call message, then one
  ``tool`` message per call, in call order.
- The speaker's message is recorded however it stops (``cancelled`` with the text so far
  when closed mid-call or mid-round); every call is an ``llm_calls`` entry.
- Approvals: when a round holds calls to tools whose entries end in ``!``, the round's
  other calls still run, then the speaker stops: ``run.paused`` holds what a
  continuation needs, its message is ``awaiting_approval`` and there is no end event. A
  run with ``resume`` first settles that round (decided calls run or are refused, the
  rest reused) and goes on calling the model.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

from pantheon.engine.approvals import PausedAgent
from pantheon.engine.calls import CallRunner
from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    SynthesisCompletedEvent,
    SynthesisStartedEvent,
    TokenUsage,
    TurnEvent,
)
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.engine.speakers import (
    CallOutcome,
    SpeakerRun,
    message_of,
    user_safe_message,
)
from pantheon.engine.tool_round import RoundOutcome, Settled, ToolBudget, ToolRound, run_round
from pantheon.engine.tooling import ToolRunner, ToolScope
from pantheon.error_codes import ErrorCode
from pantheon.llm.gateway import closing_stream
from pantheon.llm.types import ChatMessage, ToolCall, ToolDefinition, Usage

logger = logging.getLogger(__name__)


class AgentLoop:
    """Runs speakers of one turn; the tool budget is shared by all of them."""

    def __init__(self, snapshot: TurnSnapshot, calls: CallRunner, tools: ToolRunner) -> None:
        self.snapshot = snapshot
        self.calls = calls
        self.tools = tools
        self.budget = ToolBudget.of(snapshot.tool_limits)
        if snapshot.resume is not None:  # a continuation goes on with the paused budget
            state = snapshot.resume.state
            self.budget.calls_left = state.calls_left
            self.budget.rounds = dict(state.tool_rounds)

    async def speak(self, run: SpeakerRun) -> AsyncIterator[TurnEvent]:
        """Start event, the loop's events, end event; the message is recorded however it
        stops."""
        total = CallOutcome()
        pending: CallOutcome | None = None  # the call under way, if closed mid-call
        try:
            yield self._started(run)
            definitions = await self._definitions(run)
            messages = list(run.request.messages)
            if run.resume is not None:
                messages = list(run.resume.messages)
                async with closing_stream(self._settle(run, definitions, messages)) as events:
                    async for event in events:
                        yield event
            while True:
                offered = definitions if self.budget.may_offer(run.speaker.key) else []
                call = pending = CallOutcome()
                request = replace(run.request, messages=tuple(messages), tools=tuple(offered))
                async with closing_stream(self.calls.stream(request, run.speaker.round, call)) as d:
                    async for delta in d:
                        yield delta
                total.absorb(call)
                pending = None
                if call.status != "ok" or not offered or not call.tool_calls:
                    total.status, total.error_code = call.status, call.error_code
                    total.refusal = call.refusal
                    break
                messages.append(ChatMessage("assistant", call.text, tuple(call.tool_calls)))
                spec = self._spec(run, call, offered)
                outcome = RoundOutcome()
                prompt = tuple(messages)
                rounds = run_round(
                    spec, call.tool_calls, self.tools, self.snapshot.tool_limits,
                    self.calls.record, messages, outcome,
                )  # fmt: skip
                async with closing_stream(rounds) as events:
                    async for event in events:
                        yield event
                if outcome.held:
                    total.status = "ok"
                    run.paused = _paused(run, spec, call, prompt, outcome, total.text)
                    break
            if run.paused is None:
                _refuse_empty(run, total)
                yield self._finished(run, total)
        finally:
            if pending is not None:
                total.absorb(pending)
            run.message = message_of(run.speaker, total)
            if run.paused is not None:
                run.message = replace(run.message, status="awaiting_approval")
            self.calls.record.set_message(run.slot, run.message)

    def _settle(
        self, run: SpeakerRun, definitions: list[ToolDefinition], messages: list[ChatMessage]
    ) -> AsyncIterator[TurnEvent]:
        """The paused round, finished with the person's decisions."""
        paused, resume = run.resume, self.snapshot.resume
        assert paused is not None
        assert resume is not None
        spec = ToolRound(
            turn_id=self.snapshot.turn_id,
            scope=self._scope(run),
            round=paused.tool_round,
            message_slot=run.slot,
            offered=frozenset(d.name for d in definitions),
            granted=len(paused.calls),
            withheld=self._withheld(paused.calls, definitions),
        )
        settled = Settled(paused.results, resume.decisions)
        limits, record = self.snapshot.tool_limits, self.calls.record
        return run_round(spec, paused.calls, self.tools, limits, record, messages, None, settled)

    def _spec(self, run: SpeakerRun, call: CallOutcome, offered: list[ToolDefinition]) -> ToolRound:
        round_no, granted = self.budget.start_round(run.speaker.key, len(call.tool_calls))
        names = frozenset(d.name for d in offered)
        return ToolRound(
            turn_id=self.snapshot.turn_id,
            scope=self._scope(run),
            round=round_no,
            message_slot=run.slot,
            offered=names,
            granted=granted,
            gated=frozenset(n for n in names if self.tools.needs_approval(run.speaker.tools, n)),
            pausable=mode_spec(self.snapshot.mode).can_pause,
            withheld=self._withheld(call.tool_calls, offered),
        )

    def _withheld(
        self, calls: Sequence[ToolCall], offered: Sequence[ToolDefinition]
    ) -> dict[str, str]:
        """Why each called name that was not offered was held back, where the runner
        knows (a quarantined MCP tool); the rest are refused as "no such tool"."""
        names = {d.name for d in offered}
        reasons = {c.name: self.tools.withheld(c.name) for c in calls if c.name not in names}
        return {name: reason for name, reason in reasons.items() if reason}

    def _scope(self, run: SpeakerRun) -> ToolScope:
        snap = self.snapshot
        return ToolScope(
            owner_id=snap.owner_id,
            turn_id=snap.turn_id,
            agent_id=run.speaker.agent_id,
            agent_key=run.speaker.key,
            room_id=snap.room_id,
        )

    async def _definitions(self, run: SpeakerRun) -> list[ToolDefinition]:
        """The agent's tools; none when it has no entries or the runner misbehaves."""
        if not run.speaker.tools:
            return []
        try:
            async with asyncio.timeout(self.snapshot.tool_limits.timeout_s):
                return await self.tools.definitions(run.speaker.tools, self._scope(run))
        except Exception:
            logger.exception("turn %s: tool definitions failed", self.snapshot.turn_id)
            return []

    def _started(self, run: SpeakerRun) -> TurnEvent:
        turn_id, s = self.snapshot.turn_id, run.speaker
        if run.synthesis:
            return SynthesisStartedEvent(turn_id=turn_id)
        return AgentStartedEvent(turn_id=turn_id, agent_key=s.key, agent_name=s.name, round=s.round)

    def _finished(self, run: SpeakerRun, outcome: CallOutcome) -> TurnEvent:
        turn_id, s = self.snapshot.turn_id, run.speaker
        if outcome.status != "ok":
            code = outcome.error_code or ErrorCode.LLM_ERROR
            error = user_safe_message(code, outcome.refusal)
            return AgentFailedEvent(
                turn_id=turn_id, agent_key=s.key, error=error, code=code, round=s.round
            )
        if run.synthesis:
            return SynthesisCompletedEvent(turn_id=turn_id, text=outcome.text)
        usage = outcome.usage or Usage()
        tokens = TokenUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
        return AgentCompletedEvent(
            turn_id=turn_id, agent_key=s.key, text=outcome.text, usage=tokens, round=s.round
        )


def _refuse_empty(run: SpeakerRun, total: CallOutcome) -> None:
    """An answer with no text at all (a blank final call after tool rounds included) is a
    failure, never a silent empty ``agent_completed``."""
    if total.status == "ok" and not (run.prefix + total.text).strip():
        total.status, total.error_code = "error", ErrorCode.EMPTY_ANSWER


def _paused(
    run: SpeakerRun,
    spec: ToolRound,
    call: CallOutcome,
    prompt: tuple[ChatMessage, ...],
    outcome: RoundOutcome,
    text: str,
) -> PausedAgent:
    return PausedAgent(
        agent_key=run.speaker.key,
        round=run.speaker.round,
        tool_round=spec.round,
        messages=prompt,
        calls=tuple(call.tool_calls),
        results=dict(outcome.results),
        pending=tuple(c.id for c in outcome.held),
        text=run.prefix + text,
    )
