"""Interleave several event streams concurrently, with structured cancellation.

Promise: each source's own order is kept; closing the result (or cancelling its
consumer) cancels the sources' tasks and waits for their bookkeeping before returning;
a bug in a source is re-raised to the consumer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from pantheon.engine.events import TurnEvent
from pantheon.llm.gateway import closing_stream


async def fan_in(
    sources: Sequence[AsyncIterator[TurnEvent]], *, sequential: bool = False
) -> AsyncIterator[TurnEvent]:
    """Interleave the events of ``sources``; each source's own order is kept."""
    if sequential:
        for source in sources:
            async with closing_stream(source) as events:
                async for event in events:
                    yield event
        return
    queue: asyncio.Queue[TurnEvent | None] = asyncio.Queue()  # None: all sources done

    async def pump(source: AsyncIterator[TurnEvent]) -> None:
        async with closing_stream(source) as events:
            async for event in events:
                queue.put_nowait(event)

    async def run_all() -> None:
        try:
            async with asyncio.TaskGroup() as group:
                for source in sources:
                    group.create_task(pump(source))
        finally:
            queue.put_nowait(None)

    # The task group lives in its own task: an async generator must not yield from
    # inside a TaskGroup (closing it there would surface as a BaseExceptionGroup).
    producer = asyncio.create_task(run_all())
    try:
        while (item := await queue.get()) is not None:
            yield item
        await producer  # re-raises a bug from a child
    finally:
        if not producer.done():
            producer.cancel()
            # Wait for the children's cancellation bookkeeping before returning.
            await asyncio.wait([producer])
        if not producer.cancelled():
            producer.exception()  # retrieved: re-raised above or superseded by ours
