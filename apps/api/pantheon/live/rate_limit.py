"""Denial-of-wallet guard: turns per minute per API key (per user in local mode).

A sliding-window log per key, held in process memory; with ``PANTHEON_REDIS_URL`` set,
every replica shares one log per key in Redis (``live/redis/rate.py``), so the limit holds
across replicas and workers. Its route dependency, ``limit_turn_rate``, is in ``deps.py``;
the request body's size and time limits are ``body_limits.py``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

WINDOW_S = 60.0


class TurnRateLimiter(Protocol):
    async def allow(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        """Count an event and return ``None``, or the seconds to wait when over the limit."""


class RateLimiter:
    """At most ``limit`` events per ``window_s`` seconds per key (sliding window)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: dict[str, deque[float]] = {}

    def hit(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        """Record an event and return ``None``, or the seconds to wait when over the limit."""
        now = self._clock()
        events = self._events.setdefault(key, deque())
        while events and events[0] <= now - window_s:
            events.popleft()
        if len(events) >= limit:
            return events[0] + window_s - now
        events.append(now)
        return None

    async def allow(self, key: str, limit: int, window_s: float = WINDOW_S) -> float | None:
        return self.hit(key, limit, window_s)
