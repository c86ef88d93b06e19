"""Manual (tag) mode: only the agents @mentioned in the message answer.

Promise: the mentioned agents (see ``engine.mentions``: case-insensitive, each once, in
mention order) speak like a roundtable of just them: one after another, each seeing the
earlier successful answers of this turn. A message without a valid mention raises
``NoValidMention`` before any event (the route checks first and answers 422).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pantheon.engine.context import TurnContext
from pantheon.engine.events import TurnEvent
from pantheon.engine.mentions import require_mentions
from pantheon.engine.modes.roundtable import speak_in_turn
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot


class ManualMode:
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        return require_mentions(snapshot.message, snapshot.ordered_roster())

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        return speak_in_turn(ctx, self.participants(ctx.snapshot))
