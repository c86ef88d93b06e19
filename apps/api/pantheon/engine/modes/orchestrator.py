"""Orchestrator mode: a manager LLM routes specialists round by round, then synthesises.

Promise (SPEC "Orchestrator", steps 1-5), per round ``n``:
``round_start`` -> route call -> ``routing`` (``fallback=true`` when the answer was
unusable or the call failed: the first roster agent runs) -> the routed specialists run
concurrently (``sequential_specialists`` runs them in order), their events interleaved
-> ``round_end`` -> if depth and cap allow another round, an evaluate call and
``evaluation`` (unparsable or failed: ``continue=false, fallback=true``).
A round never exceeds ``max_agents_per_round`` nor the invocations left under
``max_specialist_invocations``. Then, if any specialist succeeded,
``synthesis_started`` -> ``delta``s with ``agent_key="manager"`` ->
``synthesis_completed``; a failed synthesis is ``agent_failed`` for ``manager`` and
leaves the turn ``partial``. If every specialist failed there is no synthesis and the
record's status is ``failed``. Messages are recorded in routing order, synthesis last.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.engine.context import TurnContext
from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import (
    EvaluationEvent,
    RoundEndEvent,
    RoundStartEvent,
    RoutingEvent,
    TurnEvent,
)
from pantheon.engine.modes.orchestrator_calls import (
    evaluate,
    prepare_specialist,
    prepare_synthesis,
    route,
)
from pantheon.engine.prompting import Contribution
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
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
        outputs: list[Contribution] = []
        used = 0
        for round_no in range(1, bounds.max_depth + 1):
            ctx.record.rounds = round_no
            yield RoundStartEvent(turn_id=turn_id, round=round_no)
            limit = min(bounds.max_agents_per_round, bounds.max_specialist_invocations - used)
            routing, fallback = await route(ctx, round_no, limit, outputs)
            yield RoutingEvent(
                turn_id=turn_id, round=round_no, agents=routing.agents, fallback=fallback
            )
            earlier = list(outputs)  # this round's specialists see the earlier rounds only
            runs = [
                prepare_specialist(
                    ctx, by_key[key], round_no, routing.instructions.get(key), earlier
                )
                for key in routing.agents
            ]
            async with closing_stream(ctx.fan_in(runs)) as events:
                async for event in events:
                    yield event
            used += len(runs)
            outputs.extend(c for c in (run.contribution() for run in runs) if c is not None)
            yield RoundEndEvent(turn_id=turn_id, round=round_no)
            if round_no >= bounds.max_depth or used >= bounds.max_specialist_invocations:
                break
            go_on, fallback = await evaluate(ctx, round_no, outputs)
            yield EvaluationEvent(
                turn_id=turn_id, round=round_no, continue_=go_on, fallback=fallback
            )
            if not go_on:
                break
        if outputs:
            async with closing_stream(ctx.speak(prepare_synthesis(ctx, outputs))) as events:
                async for event in events:
                    yield event
