"""Roundtable mode: every room agent answers, in room position order.

Promise: agents speak one after another; each sees, as quoted data, the successful
answers given before it in this turn (a failed agent is skipped in what later agents
see, and does not stop the others). ``round`` is ``None`` on events and messages.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from pantheon.engine.context import TurnContext
from pantheon.engine.events import TurnEvent
from pantheon.engine.prompting import Contribution, agent_system_prompt, agent_task, assemble
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.llm.gateway import closing_stream


async def speak_in_turn(
    ctx: TurnContext, agents: Sequence[AgentSnapshot]
) -> AsyncIterator[TurnEvent]:
    """``agents`` one after another, each seeing the earlier successful answers."""
    snapshot = ctx.snapshot
    roster = snapshot.ordered_roster()
    ctx.record.rounds = 1
    earlier: list[Contribution] = []
    for agent in agents:
        window = ctx.context_window(agent.model)
        task = agent_task(snapshot.message, window, earlier=earlier)
        system = agent_system_prompt(agent, roster, snapshot.room_description)
        messages = assemble(system, task, snapshot.history, window, own_key=agent.key)
        run = ctx.prepare_agent(agent, None, messages)
        async with closing_stream(ctx.speak(run)) as events:
            async for event in events:
                yield event
        contribution = run.contribution()
        if contribution is not None:
            earlier.append(contribution)


class RoundtableMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        return snapshot.ordered_roster()

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        return speak_in_turn(ctx, self.participants(ctx.snapshot))
