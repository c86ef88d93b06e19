"""One way for a protocol door to read a turn it started or found: the turn's typed events
from the first, each through the door's reader, to the turn's final event.

Every door (AG-UI, A2A, Responses, chat completions, MCP) starts or finds its turn its own
way (that is its protocol), then reads it the same way: ``TurnService.events`` (live while
the turn runs, on any replica, else its record), typed, fed to a ``TurnReader``, stopping
at the final event. What differs is whether a caller who goes away ends the turn: a
Responses stream in the foreground, a streamed chat completion or an MCP tool call cannot
be picked up again, so their turn is cancelled (``abandon``); an AG-UI run or an A2A task
outlives its request and is read again by posting or subscribing again (ADR 0039).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Protocol, TypeVar

from pantheon.engine.reader import TurnReader
from pantheon.live.streamed import StreamedEvent, typed

Out = TypeVar("Out")


class TurnEvents(Protocol):
    """Where a turn's events come from (``TurnService``)."""

    async def events(
        self, owner_id: uuid.UUID, turn_id: str, after: int
    ) -> AsyncIterator[StreamedEvent]: ...


async def turn_stream(
    turns: TurnEvents, owner_id: uuid.UUID, turn_id: str
) -> AsyncIterator[StreamedEvent]:
    """The turn's events from the first; raises the service's error (404 ...) before any,
    so a door answers it in its own shape before it reads."""
    return await turns.events(owner_id, turn_id, 0)


async def read_turn(
    stream: AsyncIterator[StreamedEvent],
    reader: TurnReader[Out],
    abandon: Callable[[], None] | None = None,
) -> AsyncGenerator[Out, None]:
    """What ``reader`` makes of each event, until the final one (``reader.final`` then
    says how the turn ended). Left before that (the caller went away, or the events
    stopped without a final event), ``abandon`` is called: the door's way to end a turn
    nobody can pick up again; ``None`` leaves it running."""
    try:
        async for event in typed(stream):
            for out in reader.feed(event):
                yield out
            if reader.finished:
                return
    finally:
        if abandon is not None and not reader.finished:
            abandon()
