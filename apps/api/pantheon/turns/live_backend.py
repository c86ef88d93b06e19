"""Which live-turn backend and rate limiter this process uses (ADR 0010): in-process
without ``PANTHEON_REDIS_URL``, shared through Redis with it."""

from __future__ import annotations

import functools
import uuid

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.limits import RateLimiter, TurnRateLimiter
from pantheon.settings import Settings
from pantheon.turns import event_log
from pantheon.turns.backend import LiveBackend
from pantheon.turns.live import Journal, LiveTurnRegistry
from pantheon.turns.repository import TurnRepository


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
    backend = RedisLiveBackend(
        store,
        functools.partial(recorded_events, db),
        functools.partial(record_interrupted, db),
        functools.partial(recorded_with_key, db),
    )
    return backend, RedisRateLimiter(store)


async def recorded_events(db: Database, turn_id: str) -> list[str] | None:
    """A committed turn's events (JSON texts); None while the database has no such turn."""
    async with unit_of_work(db, write=False) as session:
        log = await TurnRepository(session).event_log(uuid.UUID(turn_id))
    return None if log is None else await event_log.decode_async(log)


async def recorded_with_key(
    db: Database, session_id: str, key: str
) -> tuple[str, str | None] | None:
    """The id and request digest of the session's committed turn with this key, if any."""
    async with unit_of_work(db, write=False) as session:
        turn = await TurnRepository(session).by_idempotency_key(uuid.UUID(session_id), key)
    return None if turn is None else (str(turn.id), turn.request_hash)
