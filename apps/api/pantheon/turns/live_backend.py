"""Which live-turn backend and rate limiter this process uses (ADR 0010): in-process
without ``PANTHEON_REDIS_URL``, shared through Redis with it."""

from __future__ import annotations

import functools
import uuid
from collections.abc import AsyncIterator

from pantheon.db.engine import Database
from pantheon.limits import RateLimiter, TurnRateLimiter
from pantheon.settings import Settings
from pantheon.turns.backend import LiveBackend
from pantheon.turns.live import Journal, LiveTurnRegistry
from pantheon.turns.service import replay_events


def build_live_backend(
    settings: Settings, db: Database, journal: Journal | None = None
) -> tuple[LiveBackend, TurnRateLimiter]:
    """The backend and limiter for ``settings``; call ``start`` on the backend next.
    ``journal``: the in-process backend's crash journal, if any."""
    if not settings.redis_url:
        return LiveTurnRegistry(journal), RateLimiter()
    from pantheon.turns.interrupted import record_interrupted
    from pantheon.turns.shared.backend import RedisLiveBackend
    from pantheon.turns.shared.rate import RedisRateLimiter
    from pantheon.turns.shared.store import RedisStore

    store = RedisStore(settings.redis_url, settings.redis, settings.turns.timeout_s)

    def replay(turn_id: str, after: int) -> AsyncIterator[tuple[int, str]]:
        return replay_events(db, uuid.UUID(turn_id), after)

    record = functools.partial(record_interrupted, db)
    return RedisLiveBackend(store, replay, record), RedisRateLimiter(store)
