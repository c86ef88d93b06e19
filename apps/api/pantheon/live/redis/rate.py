"""Turns-per-minute limits shared by every replica: one sliding-window log per key in a
Redis sorted set, checked and counted in one script (``scripts.RATE``)."""

from __future__ import annotations

import uuid

from pantheon.live.redis.store import RedisStore, checked


class RedisRateLimiter:
    def __init__(self, store: RedisStore) -> None:
        self._store = store

    async def allow(self, key: str, limit: int, window_s: float = 60.0) -> float | None:
        """``None`` when allowed (and counted); else the seconds until a slot frees. A 503
        while Redis does not answer: no turn starts unlimited."""
        wait_ms = await checked(
            self._store.rate(
                keys=[self._store.keys.rate(key)],
                args=[limit, int(window_s * 1000), uuid.uuid4().hex],
            )
        )
        return None if int(wait_ms) < 0 else int(wait_ms) / 1000
