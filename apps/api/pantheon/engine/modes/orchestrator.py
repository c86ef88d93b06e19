"""Orchestrator mode: a manager LLM routes specialists round by round, then synthesises.

Promise (SPEC "Orchestrator", steps 1-5), per round ``n``:
``round_start`` -> route call -> ``routing`` (``fallback=true`` when the answer was
unusable or the call failed: the first roster agent runs) -> the routed specialists run
concurrently (``sequential_specialists`` runs them in order), their events interleaved
-> ``round_end`` -> if depth and cap allow another round, an evaluate call and
``evaluation`` (unparsable or failed: ``continue=false, fallback=true``). A fallback
carries ``reason`` (the failed call's error code, or ``bad_json``) and the manager's
``model``.
A round never exceeds ``max_agents_per_round`` nor the invocations left under
``max_specialist_invocations``. Then, if any specialist succeeded,
``synthesis_started`` -> ``delta``s with ``agent_key="manager"`` ->
``synthesis_completed``; a failed synthesis is ``agent_failed`` for ``manager`` and
leaves the turn ``partial``, and a ``synthesis_completed`` with ``fallback=true`` gives
the specialists' outputs as the answer (not when the synthesis was cancelled). If every
specialist failed there is no synthesis and the record's status is ``failed``. Messages
are recorded in routing order, synthesis last.

Retry (``snapshot.retry``, ADR 0034): ``round_start`` for the failed agents' round, those
agents again (no route call), ``round_end``, no evaluation, then the synthesis over the
recorded outputs and theirs (in round order), or its fallback; with no agents, no round:
the synthesis alone.

Approvals: a specialist that pauses lets the round's others finish, then the turn stops
before ``round_end`` (``awaiting_approval``). The continuation starts inside that round:
the paused specialists resume (the finished ones' outputs are reused, not re-run), then
``round_end``, evaluation, further rounds and the synthesis as usual.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pantheon.engine.approvals import OrchestratorState
from pantheon.engine.context import SpeakerRun, TurnContext
from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import (
    EvaluationEvent,
    RoundEndEvent,
    RoundStartEvent,
    RoutingEvent,
    TurnEvent,
)
from pantheon.engine.modes.orchestrator_calls import (
    ManagerFallback,
    evaluate,
    prepare_specialist,
    prepare_synthesis,
    route,
    synthesis_fallback,
)
from pantheon.engine.prompting import Contribution
from pantheon.engine.snapshot import AgentSnapshot, RetryPlan, TurnSnapshot
from pantheon.llm.gateway import closing_stream


class OrchestratorMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        roster = snapshot.ordered_roster()
        if not roster:
            raise BrokenPrecondition(
                f"orchestrator turn {snapshot.turn_id} needs at least one agent"
            )
        return roster

    async def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        snapshot, turn_id = ctx.snapshot, ctx.snapshot.turn_id
        by_key = {agent.key: agent for agent in self.participants(snapshot)}
        bounds = snapshot.orchestrator
        state = ctx.resume_state
        resumed = state.orchestrator if state is not None else None
        retry = snapshot.retry if resumed is None else None
        outputs: list[Contribution] = list(resumed.outputs) if resumed else _reused(retry)
        # A retry runs its one round and no other: it spends the invocations at once.
        used = resumed.used if resumed else bounds.max_specialist_invocations if retry else 0
        first = resumed.round if resumed else retry.round if retry else 1
        ctx.record.rounds = 1  # a retry of the synthesis alone runs no round
        alone = retry is not None and not retry.agents
        last = first - 1 if alone else max(first, bounds.max_depth)
        for round_no in range(first, last + 1):
            ctx.record.rounds = round_no
            runs: dict[str, SpeakerRun] = {}
            if resumed is not None and round_no == resumed.round:
                routed, runs = list(resumed.routed), _resumed_runs(ctx, by_key, resumed)
            else:
                opening = (
                    _retry_round(ctx, by_key, retry, outputs, runs)
                    if retry is not None
                    else _open_round(ctx, by_key, round_no, used, outputs, runs)
                )
                async with closing_stream(opening) as events:
                    async for event in events:
                        yield event
                routed = list(runs)
            async with closing_stream(ctx.fan_in(list(runs.values()))) as events:
                async for event in events:
                    yield event
            finished = {**(resumed.finished if resumed else {}), **_finished(runs)}
            if any(run.paused is not None for run in runs.values()):
                kept = OrchestratorState(
                    round=round_no, used=used, routed=tuple(routed),
                    finished=finished, outputs=tuple(outputs),
                )  # fmt: skip
                ctx.pause(list(runs.values()), orchestrator=kept)
                return
            resumed = None
            used += len(routed)
            outputs.extend(c for c in (finished.get(key) for key in routed) if c is not None)
            yield RoundEndEvent(turn_id=turn_id, round=round_no)
            if round_no >= bounds.max_depth or used >= bounds.max_specialist_invocations:
                break
            go_on, fallback = await evaluate(ctx, round_no, outputs)
            yield EvaluationEvent(
                turn_id=turn_id, round=round_no, continue_=go_on, **_fallback_fields(fallback)
            )
            if not go_on:
                break
        if outputs:
            outputs.sort(key=lambda c: c.round or 0)  # a retry's outputs join their round
            synthesis = prepare_synthesis(ctx, outputs)
            async with closing_stream(ctx.speak(synthesis)) as events:
                async for event in events:
                    yield event
            stand_in = synthesis_fallback(ctx, synthesis, outputs)
            if stand_in is not None:
                yield stand_in


async def _open_round(
    ctx: TurnContext,
    by_key: dict[str, AgentSnapshot],
    round_no: int,
    used: int,
    outputs: list[Contribution],
    runs: dict[str, SpeakerRun],
) -> AsyncIterator[TurnEvent]:
    """``round_start``, the route call, ``routing``; ``runs`` gets the routed specialists
    in routing order (they see the earlier rounds' outputs only)."""
    turn_id, bounds = ctx.snapshot.turn_id, ctx.snapshot.orchestrator
    yield RoundStartEvent(turn_id=turn_id, round=round_no)
    limit = min(bounds.max_agents_per_round, bounds.max_specialist_invocations - used)
    routing, fallback = await route(ctx, round_no, limit, outputs)
    yield RoutingEvent(
        turn_id=turn_id, round=round_no, agents=routing.agents, **_fallback_fields(fallback)
    )
    earlier = list(outputs)
    for key in routing.agents:
        instruction = routing.instructions.get(key)
        runs[key] = prepare_specialist(ctx, by_key[key], round_no, instruction, earlier)


def _reused(retry: RetryPlan | None) -> list[Contribution]:
    """The recorded outputs a retry's synthesis reads (none for other turns)."""
    if retry is None:
        return []
    return [Contribution(o.agent_key, o.agent_name, o.content, o.round) for o in retry.outputs]


async def _retry_round(
    ctx: TurnContext,
    by_key: dict[str, AgentSnapshot],
    retry: RetryPlan,
    outputs: list[Contribution],
    runs: dict[str, SpeakerRun],
) -> AsyncIterator[TurnEvent]:
    """A retry's round: ``round_start``, then the failed agents again, with no route call
    (so no ``routing``) nor instruction; they read the outputs of the rounds before."""
    yield RoundStartEvent(turn_id=ctx.snapshot.turn_id, round=retry.round)
    earlier = [c for c in outputs if (c.round or 0) < retry.round]
    for key in retry.agents:
        runs[key] = prepare_specialist(ctx, by_key[key], retry.round, None, earlier)


def _resumed_runs(
    ctx: TurnContext, by_key: dict[str, AgentSnapshot], state: OrchestratorState
) -> dict[str, SpeakerRun]:
    """The paused specialists of the round, in routing order (their slots follow that)."""
    paused = ctx.resume_state
    assert paused is not None
    runs = {}
    for key in state.routed:
        agent = paused.paused_agent(key)
        if agent is not None:
            runs[key] = ctx.resume_agent(by_key[key], agent)
    return runs


def _finished(runs: dict[str, SpeakerRun]) -> dict[str, Contribution | None]:
    """Outputs of the runs that ended (``None``: failed); paused ones are left out."""
    return {key: run.contribution() for key, run in runs.items() if run.paused is None}


def _fallback_fields(fallback: ManagerFallback | None) -> dict[str, Any]:
    """``fallback``, ``reason`` and ``model`` of a routing or evaluation event."""
    if fallback is None:
        return {"fallback": False}
    return {"fallback": True, "reason": fallback.reason, "model": fallback.model}
