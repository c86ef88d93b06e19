"""Interleave several event streams concurrently, with structured cancellation.

Promise: each source's own order is kept; closing the result (or cancelling its
consumer) cancels the sources' tasks and waits for their bookkeeping before returning;
a bug in a source is re-raised to the consumer.

With an ``Interleaving`` (a replay, docs/replay.md) the sources still run concurrently,
but their events come out in the recorded order of speakers: when the next recorded
event is a source's, that source's next event is awaited and sent first. Where the
record says nothing about these sources (it ran out, or names another speaker) events
come out as they arrive, as without one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from pantheon.engine.events import TurnEvent
from pantheon.llm.gateway import closing_stream

_END = None  # a source's last item in the queue
_ALL = -1  # the source index of the item that ends them all


@dataclass(eq=False)
class Interleaving:
    """The recorded turn's speaker per event (an agent key, or ``None`` for events of
    nobody), and how many events of this turn went out so far (``advance``)."""

    order: tuple[str | None, ...]
    position: int = 0

    def expected(self) -> str | None:
        """The speaker of the next event in the record (``None`` past its end)."""
        return self.order[self.position] if self.position < len(self.order) else None

    def advance(self) -> None:
        self.position += 1


async def fan_in(
    sources: Sequence[AsyncIterator[TurnEvent]],
    *,
    sequential: bool = False,
    keys: Sequence[str] = (),
    interleaving: Interleaving | None = None,
) -> AsyncIterator[TurnEvent]:
    """Interleave the events of ``sources``; each source's own order is kept. ``keys``
    names each source's speaker (needed only with an ``interleaving``)."""
    if sequential:
        for source in sources:
            async with closing_stream(source) as events:
                async for event in events:
                    yield event
        return
    queue: asyncio.Queue[tuple[int, TurnEvent | None]] = asyncio.Queue()

    async def pump(index: int, source: AsyncIterator[TurnEvent]) -> None:
        try:
            async with closing_stream(source) as events:
                async for event in events:
                    queue.put_nowait((index, event))
        finally:
            queue.put_nowait((index, _END))

    async def run_all() -> None:
        try:
            async with asyncio.TaskGroup() as group:
                for index, source in enumerate(sources):
                    group.create_task(pump(index, source))
        finally:
            queue.put_nowait((_ALL, _END))  # also when a pump was cancelled before it began

    # The task group lives in its own task: an async generator must not yield from
    # inside a TaskGroup (closing it there would surface as a BaseExceptionGroup).
    producer = asyncio.create_task(run_all())
    try:
        async with closing_stream(_ordered(queue, len(sources), keys, interleaving)) as items:
            async for item in items:
                yield item
        await producer  # re-raises a bug from a child
    finally:
        if not producer.done():
            producer.cancel()
            # Wait for the children's cancellation bookkeeping before returning.
            await asyncio.wait([producer])
        if not producer.cancelled():
            producer.exception()  # retrieved: re-raised above or superseded by ours


async def _ordered(
    queue: asyncio.Queue[tuple[int, TurnEvent | None]],
    count: int,
    keys: Sequence[str],
    interleaving: Interleaving | None,
) -> AsyncIterator[TurnEvent]:
    """The queued events: in arrival order, or the recorded one where it applies."""
    open_sources = set(range(count))
    waiting: list[tuple[int, TurnEvent]] = []  # arrived, not sent yet, in arrival order
    while open_sources or waiting:
        want = _wanted(keys, open_sources, waiting, interleaving)
        if want is None and waiting:
            yield waiting.pop(0)[1]
            continue
        chosen = next((i for i, (source, _) in enumerate(waiting) if source == want), None)
        if chosen is not None:
            yield waiting.pop(chosen)[1]
            continue
        index, event = await queue.get()
        if event is _END:
            open_sources = set() if index == _ALL else open_sources - {index}
        else:
            waiting.append((index, event))


def _wanted(
    keys: Sequence[str],
    open_sources: set[int],
    waiting: list[tuple[int, TurnEvent]],
    interleaving: Interleaving | None,
) -> int | None:
    """The source whose event the record puts next, if it has one left (else ``None``)."""
    if interleaving is None:
        return None
    key = interleaving.expected()
    for index, name in enumerate(keys):
        if name == key and (index in open_sources or any(s == index for s, _ in waiting)):
            return index
    return None
