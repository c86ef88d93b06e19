"""The owner's side of a shared turn: its events go to a Redis Stream, in order.

Publishing stays synchronous (no await per token): events queue here and one writer task
sends each batch in one pipelined round trip. Entry ids are ``<seq>-0``, so a reader on
any replica resumes after event ``n`` by reading after id ``n-0``; the entry after the
last event (``<seq>-1``, field ``end``) tells readers the turn is over. Internal events
(``engine/events.py``: recorded, never streamed) are entries too, field ``i`` and id
``<seq>-<k + 1>`` for the k-th after public event ``seq``: readers skip them, a dead
turn's recorder (the sweeper) reads them. If Redis fails
mid-turn, or restarts and loses the stream, the turn goes on (it commits to the database as
always); the stream stops being written, and readers elsewhere read the rest from the
turn's record once it is committed.
"""

from __future__ import annotations

import asyncio
import logging

from redis.exceptions import RedisError

from pantheon.live.redis.store import RedisStore
from pantheon.live.registry import LiveTurn, PublishedEvent

log = logging.getLogger(__name__)
END_FIELD = "end"
DATA_FIELD = "d"
INTERNAL_FIELD = "i"


def entry_id(seq: int, end: bool = False) -> str:
    return f"{seq}-{1 if end else 0}"


class StreamMirror:
    """Mirrors one local turn into its stream and frees its session lease when done."""

    def __init__(self, store: RedisStore, live: LiveTurn) -> None:
        self._store = store
        self._live = live
        self._pending: list[tuple[str, PublishedEvent]] = []  # with its entry id
        self._last_seq = 0
        self._last_sub = 0  # the last entry id's sequence part (internal events after seq)
        self._internal_after = 0  # internal events since the last public one
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._closed = False
        self.broken = False
        self.released = False  # its session lease is freed (or being freed): renew no more
        self.task = asyncio.create_task(self._run(), name=f"mirror-{live.turn_id}")

    def published(self, published: PublishedEvent) -> None:
        if published.internal:
            self._internal_after += 1
            entry = f"{published.seq}-{self._internal_after + 1}"
        else:
            self._internal_after = 0
            entry = entry_id(published.seq)
        self._pending.append((entry, published))
        self._wake.set()

    def closed(self) -> None:
        self._closed = True
        self._wake.set()

    async def committed(self) -> None:
        """Flush what is queued, then free the session (before the final event)."""
        await self._flush()
        await self._release()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._flush()
            if self._closed and not self._pending:
                await self._end()
                return

    async def _flush(self) -> None:
        async with self._lock:
            batch, self._pending = self._pending, []
            if not batch or self.broken:
                return
            key, limit = self._store.keys.events(self._live.turn_id), self._store.settings
            pipe = self._store.redis.pipeline(transaction=False)
            for entry, event in batch:
                pipe.xadd(
                    key,
                    {INTERNAL_FIELD if event.internal else DATA_FIELD: event.data},
                    id=entry,
                    maxlen=limit.stream_maxlen,
                    approximate=True,
                    nomkstream=self._last_seq > 0,  # a stream Redis lost is not begun anew
                )
            if self._last_seq == 0:  # the first batch: the stream lives past the turn's end
                pipe.pexpire(key, self._store.live_ttl_ms)
            try:
                written = await pipe.execute()
            except (RedisError, OSError) as exc:
                self._stop_sharing(str(exc))  # a gap would mislead readers: write no more
                return
            if None in written[: len(batch)]:
                self._stop_sharing("Redis lost the stream (restarted?)")
                return
            last, _ = batch[-1]
            self._last_seq, self._last_sub = (int(part) for part in last.split("-"))

    def _stop_sharing(self, reason: str) -> None:
        """Readers elsewhere find the turn's record once it is committed instead."""
        self.broken = True
        log.warning("turn %s: events no longer shared (%s)", self._live.turn_id, reason)

    async def _release(self) -> None:
        keys = self._store.keys
        live = self._live
        try:
            async with self._store.lease_lock:  # after any renewal in flight, before the next
                self.released = True
                await self._store.release(
                    keys=[keys.lease(live.session_id), keys.running], args=[live.turn_id]
                )
        except (RedisError, OSError) as exc:
            log.warning("turn %s: could not free its session lease (%s)", live.turn_id, exc)

    async def _end(self) -> None:
        """The end marker, a TTL on the turn's keys, and the lease freed (if not yet)."""
        await self._release()
        if self.broken:
            return
        keys, turn_id = self._store.keys, self._live.turn_id
        pipe = self._store.redis.pipeline(transaction=True)
        end = f"{self._last_seq}-{max(1, self._last_sub + 1)}"  # after trailing internal ones
        pipe.xadd(keys.events(turn_id), {END_FIELD: "1"}, id=end)
        pipe.pexpire(keys.events(turn_id), self._store.ttl_ms)
        pipe.pexpire(keys.meta(turn_id), self._store.ttl_ms)
        pipe.delete(keys.cancel(turn_id))
        try:
            await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("turn %s: could not mark its stream ended (%s)", turn_id, exc)
