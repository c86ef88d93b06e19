"""Roundtable mode: every room agent answers, in room position order.

Promise: agents speak one after another; each sees, as quoted data, the successful
answers given before it in this turn (a failed agent is skipped in what later agents
see, and does not stop the others). ``round`` is ``None`` on events and messages.
An agent that pauses for approval stops the turn there; the continuation resumes that
agent, then the ones after it (standalone and manual share this).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from pantheon.engine.approvals import SequenceState
from pantheon.engine.context import SpeakerRun, TurnContext
from pantheon.engine.events import TurnEvent
from pantheon.engine.prompting import Contribution, agent_system_prompt, agent_task, assemble
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.llm.gateway import closing_stream


async def speak_in_turn(
    ctx: TurnContext, agents: Sequence[AgentSnapshot]
) -> AsyncIterator[TurnEvent]:
    """``agents`` one after another, each seeing the earlier successful answers."""
    ctx.record.rounds = 1
    state = ctx.resume_state
    start = state.sequence.index if state is not None and state.sequence is not None else 0
    earlier = list(state.sequence.earlier) if state and state.sequence else []
    for index in range(start, len(agents)):
        agent = agents[index]
        paused = state.paused_agent(agent.key) if state and index == start else None
        run = ctx.resume_agent(agent, paused) if paused else _prepare(ctx, agent, earlier)
        async with closing_stream(ctx.speak(run)) as events:
            async for event in events:
                yield event
        if run.paused is not None:
            ctx.pause([run], sequence=SequenceState(index=index, earlier=tuple(earlier)))
            return
        contribution = run.contribution()
        if contribution is not None:
            earlier.append(contribution)


def _prepare(ctx: TurnContext, agent: AgentSnapshot, earlier: Sequence[Contribution]) -> SpeakerRun:
    snapshot = ctx.snapshot
    window = ctx.window(agent.model)
    task = agent_task(snapshot.message, window, earlier=earlier)
    system = agent_system_prompt(agent, snapshot.ordered_roster(), snapshot.room_description)
    messages = assemble(
        system, task, snapshot.history, window, own_key=agent.key, summary=ctx.summary_text
    )
    return ctx.prepare_agent(agent, None, messages)


class RoundtableMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        return snapshot.ordered_roster()

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        return speak_in_turn(ctx, self.participants(ctx.snapshot))
