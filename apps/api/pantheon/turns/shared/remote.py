"""A turn running on another replica, as this replica sees it: its stream and its lease.

Following reads the turn's Redis Stream with XREAD BLOCK from any event id. A stream
that goes quiet is checked: while the turn holds its lease, or waits in the running set
for the sweeper (its owner died), the reader keeps waiting; once it has left both without
an end marker (its owner lost Redis mid-turn), the rest comes from the database.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from redis.exceptions import RedisError

from pantheon.turns.shared.mirror import DATA_FIELD, END_FIELD, entry_id
from pantheon.turns.shared.store import RedisStore, checked

log = logging.getLogger(__name__)
BATCH = 500
Replay = Callable[[str, int], AsyncIterator[tuple[int, str]]]


@dataclass(eq=False)
class RemoteTurn:
    """A running turn of any replica, found through its metadata in Redis."""

    store: RedisStore
    replay: Replay
    turn_id: str
    session_id: str
    owner_id: uuid.UUID
    idempotency_key: str | None
    request_hash: str | None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def from_meta(cls, store: RedisStore, replay: Replay, meta: dict[str, str]) -> RemoteTurn:
        return cls(
            store=store,
            replay=replay,
            turn_id=meta["turn_id"],
            session_id=meta["session_id"],
            owner_id=uuid.UUID(meta["owner_id"]),
            idempotency_key=meta.get("key") or None,
            request_hash=meta.get("hash") or None,
        )

    async def stream(self, after: int) -> AsyncIterator[tuple[int, str]]:
        """Events after ``after``, live until the end marker (or the database's copy)."""
        position = after
        try:
            async for seq, data in self._entries(entry_id(after)):
                position = seq
                yield seq, data
            return
        except _Unended:
            pass
        except (RedisError, OSError) as exc:
            log.warning("turn %s: stream read failed (%s)", self.turn_id, exc)
        async for seq, data in self.replay(self.turn_id, position):
            yield seq, data

    async def _entries(self, start: str) -> AsyncIterator[tuple[int, str]]:
        key, last = self.store.keys.events(self.turn_id), start
        block_ms = int(self.store.settings.block_s * 1000)
        while True:
            found = await self.store.read(key, last, BATCH, block_ms)
            if not found:
                await self._check_running()
                continue
            for entry, fields in found:
                if END_FIELD in fields:
                    return
                last = entry
                yield int(entry.split("-", 1)[0]), fields[DATA_FIELD]

    async def _check_running(self) -> None:
        """Raise ``_Unended`` when the turn left Redis without its end marker."""
        keys = self.store.keys
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.get(keys.lease(self.session_id))
        pipe.zscore(keys.running, self.turn_id)
        pipe.xrevrange(keys.events(self.turn_id), count=1)
        holder, pending, tail = await pipe.execute()
        if holder == self.turn_id or pending is not None:
            return
        if tail and END_FIELD in tail[0][1]:
            return  # ended just now: the next read returns the rest
        raise _Unended

    async def wait_finished(self) -> None:
        """Return once the turn's stream has ended (reads only its newest entries)."""
        tail = await checked(self.store.tail(self.store.keys.events(self.turn_id)))
        start = tail[0] if tail else "0-0"
        try:
            async for _ in self._entries(start):
                pass
        except (_Unended, RedisError, OSError):
            return

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


class _Unended(Exception):
    """The turn is no longer running, yet its stream has no end marker."""
