"""Runs one turn from a plain snapshot: no database, no HTTP; yields events.

Promises:
- ``run_turn`` yields ``turn_started`` first, then the mode's events (see
  ``turns.events`` for the catalogue and ``turns.modes.*`` for each mode's sequence),
  and fills ``record`` as it goes. It never yields ``turn_completed`` or ``error``: the
  layer above does, after its commit or when this generator raises.
- LLM failures never raise: they become ``agent_failed`` events and ``failed`` entries in
  the record. Anything that does raise is a bug or a broken precondition (an empty
  room, a manual turn without a valid mention: ``NoValidMention``), raised before
  ``turn_started`` where it can be.
- Cancellation: cancelling the consuming task, or closing the generator (consume it with
  ``contextlib.aclosing``), cancels running agents and returns only after the record
  holds their partial output (status ``cancelled``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pantheon.llm.gateway import LLMGateway, closing_stream
from pantheon.turns.events import TurnEvent, TurnStartedEvent
from pantheon.turns.modes.base import TurnContext, TurnMode
from pantheon.turns.modes.manual import ManualMode
from pantheon.turns.modes.orchestrator import OrchestratorMode
from pantheon.turns.modes.roundtable import RoundtableMode
from pantheon.turns.modes.standalone import StandaloneMode
from pantheon.turns.record import TurnRecord
from pantheon.turns.snapshot import Mode, TurnSnapshot

_MODES: dict[Mode, TurnMode] = {
    "standalone": StandaloneMode(),
    "manual": ManualMode(),
    "roundtable": RoundtableMode(),
    "orchestrator": OrchestratorMode(),
}


def select_mode(mode: Mode) -> TurnMode:
    """The implementation of ``mode``; ``ValueError`` for an unknown name."""
    try:
        return _MODES[mode]
    except KeyError:
        raise ValueError(f"unknown turn mode {mode!r}") from None


async def run_turn(
    snapshot: TurnSnapshot, gateway: LLMGateway, record: TurnRecord
) -> AsyncGenerator[TurnEvent, None]:
    """The turn's events; ``record`` holds what was produced, even when cancelled."""
    mode = select_mode(snapshot.mode)
    participants = mode.participants(snapshot)
    record.mode = snapshot.mode
    ctx = TurnContext(snapshot, gateway, record)
    yield TurnStartedEvent(
        turn_id=snapshot.turn_id,
        session_id=snapshot.session_id,
        mode=snapshot.mode,
        agents=[agent.key for agent in participants],
    )
    async with closing_stream(mode.run(ctx)) as events:
        async for event in events:
            yield event
