"""The owner's side of a shared turn: its events go to a Redis Stream, in order.

Publishing stays synchronous (no await per token): events queue here and the replica's
one writer task (``writer.py``) sends them with every other turn's queued events in one
round trip. Entry ids are ``<seq>-0``, so a reader on any replica resumes after event
``n`` by reading after id ``n-0``; the entry after the last event (``<seq>-1``, field
``end``) tells readers the turn is over. Internal events (``engine/events.py``: recorded,
never streamed) are entries too, field ``i`` and id ``<seq>-<k + 1>`` for the k-th after
public event ``seq``: readers skip them, a dead turn's recorder (the sweeper) reads them.
If Redis fails mid-turn, or restarts and loses the stream, the turn goes on (it commits to
the database as always); the stream stops being written, and readers elsewhere read the
rest from the turn's record once it is committed.
"""

from __future__ import annotations

import asyncio
import logging

from redis.exceptions import RedisError

from pantheon.live.redis.store import RedisStore
from pantheon.live.redis.writer import MirrorWriter
from pantheon.live.registry import LiveTurn, PublishedEvent

log = logging.getLogger(__name__)
END_FIELD = "end"
DATA_FIELD = "d"
INTERNAL_FIELD = "i"


def entry_id(seq: int, end: bool = False) -> str:
    return f"{seq}-{1 if end else 0}"


class StreamMirror:
    """Mirrors one local turn into its stream and frees its session lease when done."""

    def __init__(self, store: RedisStore, writer: MirrorWriter, live: LiveTurn) -> None:
        self._store = store
        self._writer = writer
        self._live = live
        self.key = store.keys.events(live.turn_id)
        self._pending: list[str] = []  # id, field, value of each entry not yet sent
        self._in_flight = ""  # the last entry id of the batch the writer took
        self._last_seq = 0
        self._last_sub = 0  # the last entry id's sequence part (internal events after seq)
        self._internal_after = 0  # internal events since the last public one
        self._written = asyncio.Event()  # nothing pending or in flight
        self._written.set()
        self._closed = asyncio.Event()
        self.broken = False
        self.released = False  # its session lease is freed (or being freed): renew no more
        self.task = asyncio.create_task(self._run(), name=f"mirror-{live.turn_id}")

    def published(self, published: PublishedEvent) -> None:
        if published.internal:
            self._internal_after += 1
            entry = f"{published.seq}-{self._internal_after + 1}"
            field = INTERNAL_FIELD
        else:
            self._internal_after = 0
            entry, field = entry_id(published.seq), DATA_FIELD
        if self.broken:
            return
        self._pending += (entry, field, published.data)
        self._written.clear()
        self._writer.queued(self)

    def closed(self) -> None:
        self._closed.set()

    def take(self) -> tuple[bool, int, list[str]]:
        """The writer takes what is pending: (stream must exist, TTL ms, entries)."""
        fields, self._pending = self._pending, []
        if self.broken:
            fields = []
        self._in_flight = fields[-3] if fields else ""
        started = self._last_seq > 0  # a stream Redis lost is not begun anew
        return started, 0 if started else self._store.live_ttl_ms, fields  # lives past the end

    def wrote(self, added: int, error: str | None) -> None:
        """The writer's round trip for what it took is back."""
        if error is not None and not self.broken:
            self.broken = True  # a gap would mislead readers: write no more
            log.warning("turn %s: events no longer shared (%s)", self._live.turn_id, error)
        elif added and self._in_flight:
            self._last_seq, self._last_sub = (int(part) for part in self._in_flight.split("-"))
        self._in_flight = ""
        if not self._pending or self.broken:
            self._pending = []
            self._written.set()

    async def committed(self) -> None:
        """Wait until what is queued is written, then free the session (before the final
        event)."""
        await self._drained()
        await self._release()

    async def _drained(self) -> None:
        if not self._written.is_set():
            self._writer.hurry()
            await self._written.wait()

    async def _run(self) -> None:
        await self._closed.wait()
        await self._drained()
        await self._end()

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
