"""Pipeline mode: every room agent in roster order, each refining the previous stage.

Promise (SPEC "Workflows"): stage ``n`` (1-based, roster order) gets the user's message
and, from stage 2, the previous stage's output quoted as data (``engine.prompting``).
Each stage is ``stage_started`` -> the agent's events -> ``stage_completed`` (``ok``,
``text``). A failed (or cancelled) stage stops the pipeline: no later stage runs, the
record is ``partial`` and the answer is the last good stage's output. Stages in
``snapshot.reuse`` (a ``rerun_from``) come first: they are recorded as reused messages
and announced with ``reused=true`` but make no LLM call, so they are not billed again.
Messages are recorded in stage order.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.engine.context import TurnContext
from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import StageCompletedEvent, StageStartedEvent, TurnEvent
from pantheon.engine.prompting import Contribution, agent_system_prompt, agent_task, assemble
from pantheon.engine.record import ProducedMessage
from pantheon.engine.snapshot import AgentSnapshot, ReusedStage, TurnSnapshot
from pantheon.llm.gateway import closing_stream

PREVIOUS_STAGE = "The previous stage's output, to build on:"


def _reused_message(stage: ReusedStage) -> ProducedMessage:
    return ProducedMessage(
        role="assistant",
        agent_key=stage.agent_key,
        agent_name=stage.agent_name,
        round=None,
        content=stage.content,
        reused=True,
    )


class PipelineMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        roster = snapshot.ordered_roster()
        keys = [a.key for a in roster[: len(snapshot.reuse)]]
        if not roster or keys != [s.agent_key for s in snapshot.reuse]:
            raise BrokenPrecondition(
                f"pipeline turn {snapshot.turn_id} needs agents, and reused stages that "
                "are the roster's first ones"
            )
        return roster

    async def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        snapshot, turn_id = ctx.snapshot, ctx.snapshot.turn_id
        stages = self.participants(snapshot)
        ctx.record.rounds = 1
        previous: Contribution | None = None
        for number, stage in enumerate(snapshot.reuse, start=1):
            yield StageStartedEvent(
                turn_id=turn_id, stage=number, agent_key=stage.agent_key,
                agent_name=stage.agent_name, reused=True,
            )  # fmt: skip
            ctx.record.set_message(ctx.record.reserve_message(), _reused_message(stage))
            previous = Contribution(stage.agent_key, stage.agent_name, stage.content)
            yield StageCompletedEvent(
                turn_id=turn_id, stage=number, agent_key=stage.agent_key,
                agent_name=stage.agent_name, reused=True, text=stage.content,
            )  # fmt: skip
        for number, agent in enumerate(stages[len(snapshot.reuse) :], len(snapshot.reuse) + 1):
            yield StageStartedEvent(
                turn_id=turn_id, stage=number, agent_key=agent.key, agent_name=agent.name
            )
            window = ctx.context_window(agent.model)
            earlier = [previous] if previous is not None else []
            task = agent_task(
                snapshot.message, window, earlier=earlier, earlier_heading=PREVIOUS_STAGE
            )
            system = agent_system_prompt(agent, stages, snapshot.room_description)
            messages = assemble(system, task, snapshot.history, window, own_key=agent.key)
            run = ctx.prepare_agent(agent, None, messages, purpose="stage")
            async with closing_stream(ctx.speak(run)) as events:
                async for event in events:
                    yield event
            previous = run.contribution()
            yield StageCompletedEvent(
                turn_id=turn_id, stage=number, agent_key=agent.key, agent_name=agent.name,
                ok=previous is not None, text=previous.text if previous else "",
            )  # fmt: skip
            if previous is None:
                break
