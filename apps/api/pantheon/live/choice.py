"""The one place that chooses where running turns live (ADR 0010): in this process
without ``PANTHEON_REDIS_URL``, shared through Redis with it."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pantheon.db.engine import Database
from pantheon.live.backend import LiveBackend
from pantheon.live.rate_limit import RateLimiter, TurnRateLimiter
from pantheon.live.records import recorded_events, recorded_with_key
from pantheon.live.registry import Journal, LiveTurnRegistry
from pantheon.settings import Settings


@dataclass(frozen=True, slots=True)
class LiveTurns:
    """The chosen backend, the turns running in this process (server shutdown drains
    them first) and the turn rate limiter that goes with the backend."""

    backend: LiveBackend
    here: LiveTurnRegistry
    rate_limiter: TurnRateLimiter


def build_live_turns(settings: Settings, db: Database, journal: Journal | None = None) -> LiveTurns:
    """The live turns for ``settings``; call ``backend.start`` next. ``journal``: the
    in-process backend's crash journal, if any."""
    if not settings.redis_url:
        registry = LiveTurnRegistry(journal)
        return LiveTurns(registry, registry, RateLimiter())
    from pantheon.live.interrupted import record_interrupted
    from pantheon.live.redis.backend import RedisLiveBackend
    from pantheon.live.redis.rate import RedisRateLimiter
    from pantheon.live.redis.store import RedisStore

    store = RedisStore(settings.redis_url, settings.redis, settings.turns.timeout_s)
    here = LiveTurnRegistry()
    backend = RedisLiveBackend(
        store,
        functools.partial(recorded_events, db),
        functools.partial(record_interrupted, db),
        functools.partial(recorded_with_key, db),
        here,
    )
    return LiveTurns(backend, here, RedisRateLimiter(store))
