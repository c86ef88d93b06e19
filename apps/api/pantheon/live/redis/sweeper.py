"""Turns whose replica died: recorded ``interrupted`` once, and their listeners released.

Each replica looks every ``sweep_interval_s`` for turns whose lease expiry has passed
(the running set, scored by Redis's clock). For each, one replica wins a claim key
(``SET NX``), checks that no live owner holds the lease, records the turn from its
metadata and stream with ``record_interrupted`` (live/interrupted.py: the user's message
and the text produced so far, once), then appends the same final ``error`` event
(``code: interrupted``) and the end marker to the stream, so every follower ends.
A recording that fails drops the claim: the next sweep tries again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from redis.exceptions import RedisError

from pantheon.engine.events import event_to_json
from pantheon.live.interrupted import interrupted_event
from pantheon.live.meta import TurnMeta
from pantheon.live.redis.mirror import DATA_FIELD, END_FIELD, INTERNAL_FIELD, entry_id
from pantheon.live.redis.store import RedisStore

log = logging.getLogger(__name__)
SWEEP_BATCH = 50


# Records the turn; False when the database already has it (the owner committed, then died).
RecordInterrupted = Callable[[TurnMeta, Sequence[str]], Awaitable[bool]]


class Sweeper:
    def __init__(
        self, store: RedisStore, record: RecordInterrupted, is_local: Callable[[str], bool]
    ) -> None:
        self._store = store
        self._record = record
        self._is_local = is_local

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self._store.settings.sweep_interval_s)
            try:
                await self.sweep_once()
            except (RedisError, OSError) as exc:
                log.warning("interrupted-turn sweep failed (%s)", exc)
            except Exception:  # the sweeper must outlive any one bad turn
                log.exception("interrupted-turn sweep failed")

    async def sweep_once(self) -> None:
        """Record every turn whose lease lapsed and whose stream has no end."""
        keys = self._store.keys
        expired = await self._store.expired(keys=[keys.running], args=[SWEEP_BATCH])
        for turn_id in expired:
            if not self._is_local(turn_id):  # ours is alive: the renewal catches up
                await self._sweep(str(turn_id))

    async def _sweep(self, turn_id: str) -> None:
        store, keys, redis = self._store, self._store.keys, self._store.redis
        meta = await store.meta(turn_id)
        if not meta:
            await redis.zrem(keys.running, turn_id)
            return
        if await store.text(keys.lease(meta["session_id"])) == turn_id:
            return  # its owner renewed after all
        if not await redis.set(keys.swept(turn_id), "1", nx=True, px=self._store.live_ttl_ms):
            return  # another replica has it
        entries = await store.entries(keys.events(turn_id))
        if any(END_FIELD in fields for _id, fields in entries):
            await redis.zrem(keys.running, turn_id)
            return
        texts = [fields.get(DATA_FIELD) or fields[INTERNAL_FIELD] for _id, fields in entries]
        try:
            recorded = await self._record(TurnMeta.from_json(meta["meta"]), texts)
        except Exception:
            log.exception("turn %s: could not record it as interrupted; will retry", turn_id)
            await redis.delete(keys.swept(turn_id))
            return
        if not recorded:  # followers find it gone from Redis and read the database's copy
            await redis.zrem(keys.running, turn_id)
            return
        last_seq = int(entries[-1][0].split("-", 1)[0]) if entries else 0
        final = event_to_json(interrupted_event(turn_id))
        await self._finish(turn_id, last_seq + 1, final)
        log.warning("turn %s: its replica stopped; recorded as interrupted", turn_id)

    async def _finish(self, turn_id: str, seq: int, final: str) -> None:
        keys, ttl = self._store.keys, self._store.ttl_ms
        pipe = self._store.redis.pipeline(transaction=True)
        pipe.xadd(keys.events(turn_id), {DATA_FIELD: final}, id=entry_id(seq))
        pipe.xadd(keys.events(turn_id), {END_FIELD: "1"}, id=entry_id(seq, end=True))
        pipe.pexpire(keys.events(turn_id), ttl)
        pipe.pexpire(keys.meta(turn_id), ttl)
        pipe.zrem(keys.running, turn_id)
        await pipe.execute()
