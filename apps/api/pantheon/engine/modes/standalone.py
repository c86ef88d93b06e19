"""Standalone mode: the one agent the session is bound to answers.

Promise: the snapshot's roster holds exactly that agent (``BrokenPrecondition`` otherwise, a
caller bug); it sees the session history and the message, nothing else.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.engine.context import TurnContext
from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import TurnEvent
from pantheon.engine.modes.roundtable import speak_in_turn
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot


class StandaloneMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        if len(snapshot.roster) != 1:
            raise BrokenPrecondition(
                f"standalone turn {snapshot.turn_id} needs exactly one agent, "
                f"got {len(snapshot.roster)}"
            )
        return list(snapshot.roster)

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        return speak_in_turn(ctx, self.participants(ctx.snapshot))
