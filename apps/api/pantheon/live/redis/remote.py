"""A turn running on another replica, as this replica sees it: its stream and its lease.

Following reads the turn's Redis Stream with XREAD BLOCK from any event id. A stream
that goes quiet is checked: while the turn holds its lease, or waits in the running set
for the sweeper (its owner died), the reader keeps waiting. When Redis can no longer tell
the whole story (the turn left it without an end marker, its stream skips events because
Redis restarted and lost them, or a read failed), the rest comes from the turn's record
once it is committed; a turn that ends unrecorded ends its followers with an ``error``.
So every stream ends with exactly one final event, unless this replica shuts down: then
waits end at once (a follower resumes elsewhere with ``Last-Event-ID``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from redis.exceptions import RedisError

from pantheon.engine.events import ErrorEvent, event_to_json
from pantheon.engine.fold import INTERRUPTED
from pantheon.errors import ServiceUnavailable
from pantheon.live.redis.mirror import DATA_FIELD, END_FIELD, INTERNAL_FIELD, entry_id
from pantheon.live.redis.store import RedisStore, checked
from pantheon.live.registry import SHUTTING_DOWN
from pantheon.live.streamed import StoredEvent, StreamedEvent

log = logging.getLogger(__name__)
T = TypeVar("T")
BATCH = 500
POLL_S = 0.5  # how often a follower that lost the stream looks for the turn's record
# A turn's recorded events (JSON texts), or None while the database has no such turn.
Recorded = Callable[[str], Awaitable[list[str] | None]]


@dataclass(eq=False)
class RemoteTurn:
    """A running turn of any replica, found through its metadata in Redis."""

    store: RedisStore
    recorded: Recorded
    stopping: asyncio.Event  # this replica's shutdown began
    turn_id: str
    session_id: str
    owner_id: uuid.UUID
    idempotency_key: str | None
    request_hash: str | None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def from_meta(
        cls, store: RedisStore, recorded: Recorded, stopping: asyncio.Event, meta: dict[str, str]
    ) -> RemoteTurn:
        return cls(
            store=store,
            recorded=recorded,
            stopping=stopping,
            turn_id=meta["turn_id"],
            session_id=meta["session_id"],
            owner_id=uuid.UUID(meta["owner_id"]),
            idempotency_key=meta.get("key") or None,
            request_hash=meta.get("hash") or None,
        )

    async def stream(self, after: int) -> AsyncIterator[StreamedEvent]:
        """Events after ``after``, live until the end marker (or the record's copy)."""
        position = after
        try:
            async for seq, data in self._entries(after):
                position = seq
                yield StoredEvent(seq, data)
            return
        except _Stopping:
            return
        except _Lost:
            pass
        except (RedisError, OSError) as exc:
            log.warning("turn %s: stream read failed (%s)", self.turn_id, exc)
        try:
            texts = await self._settled()
        except _Stopping:
            return
        if texts is None:
            yield StoredEvent(position + 1, _lost_event(self.turn_id))
            return
        for seq, data in enumerate(texts[position:], start=position + 1):
            yield StoredEvent(seq, data)

    async def _entries(self, after: int) -> AsyncIterator[tuple[int, str]]:
        """The stream's events after ``after`` in order; ``_Lost`` at a gap."""
        key, last, position = self.store.keys.events(self.turn_id), entry_id(after), after
        block_ms = int(self.store.settings.block_s * 1000)
        while True:
            found = await self._unless_stopping(self.store.read(key, last, BATCH, block_ms))
            if not found:
                if await self._over(position):
                    return
                continue
            for entry, fields in found:
                seq = _seq(entry)
                if INTERNAL_FIELD in fields:  # recorded, never sent to clients
                    last = entry
                    continue
                if END_FIELD in fields:
                    if seq != position:  # the end of a stream that lost our next events
                        raise _Lost
                    return
                if seq != position + 1:  # Redis lost events (it restarted), or trimmed them
                    raise _Lost
                position, last = seq, entry
                yield seq, fields[DATA_FIELD]

    async def _over(self, position: int) -> bool:
        """After a quiet read: whether the stream ended at or before ``position`` (a resume
        past its end); ``_Lost`` when the turn left Redis without an end marker."""
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.get(keys.lease(self.session_id))
        pipe.zscore(keys.running, self.turn_id)
        pipe.xrevrange(keys.events(self.turn_id), count=1)
        holder, pending, tail = await self._unless_stopping(pipe.execute())
        if tail and END_FIELD in tail[0][1]:
            return _seq(tail[0][0]) <= position  # else the next read returns the rest
        if holder == self.turn_id or pending is not None:
            return False
        raise _Lost

    async def _settled(self) -> list[str] | None:
        """Once the turn is over: its recorded events; None when it ended unrecorded (out
        of Redis for a whole lease, so its owner is not renewing it) or past the limit."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.store.wait_limit_s
        gone_since: float | None = None
        while True:
            texts = await self._unless_stopping(self.recorded(self.turn_id))
            if texts is not None:
                return texts
            now = loop.time()
            if await self._running():
                gone_since = None
            elif gone_since is None:
                gone_since = now
            elif now - gone_since >= self.store.settings.lease_s:
                return None
            if now >= deadline:
                return None
            await self._unless_stopping(asyncio.sleep(POLL_S))

    async def _running(self) -> bool:
        """Whether the turn holds its lease or awaits the sweeper (True when Redis cannot
        say: the limit bounds the wait)."""
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.get(keys.lease(self.session_id))
        pipe.zscore(keys.running, self.turn_id)
        try:
            holder, pending = await self._unless_stopping(pipe.execute())
        except (RedisError, OSError):
            return True
        return holder == self.turn_id or pending is not None

    async def wait_finished(self) -> None:
        """Return once the turn is over: its end marker, or its record once it left Redis.
        503 when this replica begins shutting down or after ``wait_limit_s``."""
        try:
            async with asyncio.timeout(self.store.wait_limit_s):
                await self._wait_over()
        except _Stopping as exc:
            raise ServiceUnavailable(SHUTTING_DOWN) from exc
        except TimeoutError as exc:
            limit = self.store.wait_limit_s
            raise ServiceUnavailable(
                f"turn {self.turn_id} did not finish within {limit:.0f}s; retry"
            ) from exc

    async def _wait_over(self) -> None:
        key = self.store.keys.events(self.turn_id)
        while True:
            try:
                tail = await self._unless_stopping(self.store.tail(key))
                if tail is not None and END_FIELD in tail[1]:
                    return
                async for _ in self._entries(_seq(tail[0]) if tail is not None else 0):
                    pass
                return
            except _Lost:
                await self._settled()
                return
            except (RedisError, OSError) as exc:  # the limit bounds the retries
                log.warning("turn %s: waiting on Redis (%s)", self.turn_id, exc)
                await self._unless_stopping(asyncio.sleep(self.store.settings.timeout_s))

    async def _unless_stopping(self, call: Awaitable[T]) -> T:
        """``call``'s result; ``_Stopping`` as soon as this replica begins shutting down."""
        task = asyncio.ensure_future(call)
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait((task, stop), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if not task.done():
                task.cancel()
                task.add_done_callback(_retrieve)  # a late failure is of no interest now
        if task.done() and not task.cancelled():
            return task.result()
        raise _Stopping

    def cancel(self) -> None:
        """Deliver the cancel to the owner: a flag its lease renewal reads, and a message
        on the cancel channel for it to act on at once."""
        task = asyncio.create_task(self.request_cancel())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def request_cancel(self) -> None:
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.set(keys.cancel(self.turn_id), "1", px=self.store.live_ttl_ms)
        pipe.publish(keys.cancel_channel, self.turn_id)
        await checked(pipe.execute())


@dataclass(frozen=True, eq=False)
class RecordedTurn:
    """A turn already in the database, as a ``LiveView``: what a same-key retry gets when
    the turn committed between its own check and its claim."""

    recorded: Recorded
    turn_id: str
    owner_id: uuid.UUID
    idempotency_key: str | None
    request_hash: str | None
    session_id: str

    async def stream(self, after: int) -> AsyncIterator[StreamedEvent]:
        texts = await self.recorded(self.turn_id) or []
        for seq, data in enumerate(texts[after:], start=after + 1):
            yield StoredEvent(seq, data)

    def cancel(self) -> None:
        """Nothing runs: the turn is over."""

    async def wait_finished(self) -> None:
        """It has finished."""


def _retrieve(task: asyncio.Task[T]) -> None:
    if not task.cancelled():
        task.exception()


def _seq(entry: str) -> int:
    return int(entry.split("-", 1)[0])


def _lost_event(turn_id: str) -> str:
    """The final event of a follower whose turn ended unrecorded after Redis lost its
    events: what happened in between cannot be known here."""
    return event_to_json(
        ErrorEvent(
            turn_id=turn_id,
            code=INTERRUPTED,
            message="this turn's live events were lost and it was not recorded",
        )
    )


class _Lost(Exception):
    """Redis no longer holds the rest of the turn's events."""


class _Stopping(Exception):
    """This replica began shutting down."""
