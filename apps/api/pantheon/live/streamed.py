"""A turn's events as every reader gets them: ``seq``, the JSON text, the typed event.

In-process the event is the object the engine made (``PublishedEvent``); an event that
comes back from text (the event log, another replica's Redis stream) is parsed only when
a reader asks for it, so the SSE edge, which sends the text, never parses it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Protocol

from pydantic import ValidationError

from pantheon.engine.events import TurnEvent, event_from_json

log = logging.getLogger(__name__)


class StreamedEvent(Protocol):
    """One public event of a turn's stream."""

    @property
    def seq(self) -> int: ...

    @property
    def data(self) -> str: ...

    @property
    def event(self) -> TurnEvent: ...


class StoredEvent:
    """An event read back as text; typed on first use."""

    __slots__ = ("_event", "data", "seq")

    def __init__(self, seq: int, data: str) -> None:
        self.seq = seq
        self.data = data
        self._event: TurnEvent | None = None

    @property
    def event(self) -> TurnEvent:
        if self._event is None:
            self._event = event_from_json(self.data)
        return self._event


async def typed(events: AsyncIterator[StreamedEvent]) -> AsyncIterator[TurnEvent]:
    """The typed events of a stream; one this catalogue does not know (a newer replica's,
    mid-upgrade) is skipped, as a reader of an older version would."""
    async for streamed in events:
        try:
            event = streamed.event
        except ValidationError:
            log.warning("turn event %s is not in this version's catalogue; skipped", streamed.seq)
            continue
        yield event
