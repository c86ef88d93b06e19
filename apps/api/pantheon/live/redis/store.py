"""The Redis connection, key names and scripts of shared live turns.

Every command has a deadline: the command client's socket timeout is ``timeout_s``; the
blocking client (XREAD BLOCK, pub/sub) waits at most ``block_s`` plus ``timeout_s``; a
command that fails on a broken connection (Redis restarted: every pooled connection is
stale) is tried once more on a new one. A Redis failure becomes a 503 naming Redis.
Each client's pool holds at most ``max_connections``; past that a command waits for a
free connection (up to ``timeout_s``) instead of failing at once, so a burst of turns
queues briefly rather than answering 503 (B9 saw that at 128 turns in flight).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar, cast

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry  # redis.retry's would not await, so never retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

from pantheon.errors import ServiceUnavailable
from pantheon.live.redis import scripts
from pantheon.settings import RedisSettings

T = TypeVar("T")
Entry = tuple[str, dict[str, str]]  # a stream entry: its id and fields


class Keys:
    """Key names under one prefix (one Redis may serve several deployments)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.running = f"{prefix}:running"  # sorted set: turn id -> lease expiry (ms)
        self.cancel_channel = f"{prefix}:cancel"

    def lease(self, session_id: str) -> str:
        return f"{self.prefix}:lease:{session_id}"

    def meta(self, turn_id: str) -> str:
        return f"{self.prefix}:turn:{turn_id}"

    def events(self, turn_id: str) -> str:
        return f"{self.prefix}:events:{turn_id}"

    def cancel(self, turn_id: str) -> str:
        return f"{self.prefix}:cancel:{turn_id}"

    def swept(self, turn_id: str) -> str:
        return f"{self.prefix}:swept:{turn_id}"

    def rate(self, key: str) -> str:
        return f"{self.prefix}:rate:{key}"


def unavailable(exc: BaseException) -> ServiceUnavailable:
    """The 503 every request gets while Redis does not answer."""
    reason = str(exc) or type(exc).__name__
    return ServiceUnavailable(
        f"the live-turn store (Redis, PANTHEON_REDIS_URL) is unavailable: {reason}; retry shortly"
    )


async def checked(call: Awaitable[T]) -> T:
    """``call``'s result, or a 503 when Redis failed."""
    try:
        return await call
    except (RedisError, OSError) as exc:
        raise unavailable(exc) from exc


def _pool(
    url: str, settings: RedisSettings, socket_timeout: float, retry: Retry
) -> BlockingConnectionPool:
    """A bounded pool whose callers wait ``timeout_s`` for a free connection."""
    pool: BlockingConnectionPool = BlockingConnectionPool.from_url(
        url,
        max_connections=settings.max_connections,
        timeout=settings.timeout_s,
        socket_timeout=socket_timeout,
        socket_connect_timeout=settings.timeout_s,
        decode_responses=True,
        retry=retry,
    )
    return pool


class RedisStore:
    """Two clients on one URL (commands, and blocking reads) plus the registered scripts."""

    def __init__(self, url: str, settings: RedisSettings, turn_timeout_s: float) -> None:
        self.settings = settings
        self.turn_timeout_s = turn_timeout_s
        self.keys = Keys(settings.key_prefix)
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=1)
        self.redis = Redis(connection_pool=_pool(url, settings, settings.timeout_s, retry))
        blocking_timeout = settings.block_s + settings.timeout_s
        self.blocking = Redis(connection_pool=_pool(url, settings, blocking_timeout, retry))
        self.claim = self.redis.register_script(scripts.CLAIM)
        self.renew = self.redis.register_script(scripts.RENEW)
        self.release = self.redis.register_script(scripts.RELEASE)
        self.expired = self.redis.register_script(scripts.EXPIRED)
        self.rate = self.redis.register_script(scripts.RATE)
        self.append = self.redis.register_script(scripts.APPEND)
        # Held by a lease renewal across its round trip and by a turn freeing its lease:
        # a renewal sent before a release must not land after it and take the lease back.
        self.lease_lock = asyncio.Lock()

    @property
    def lease_ms(self) -> int:
        return int(self.settings.lease_s * 1000)

    @property
    def ttl_ms(self) -> int:
        """How long a turn's events and metadata stay after it ended."""
        return int(self.settings.stream_ttl_s * 1000)

    @property
    def wait_limit_s(self) -> float:
        """The longest another replica's turn can take to end: its own deadline, plus a
        lease and a sweep if its replica dies, plus one read. Waits on it are bounded so."""
        s = self.settings
        return self.turn_timeout_s + s.lease_s + s.sweep_interval_s + s.block_s + s.timeout_s

    @property
    def live_ttl_ms(self) -> int:
        """The same while it runs: its longest run, plus the time after its end."""
        return int((self.turn_timeout_s + self.settings.stream_ttl_s) * 1000)

    async def aclose(self) -> None:
        for client in (self.redis, self.blocking):
            await client.aclose()
            await client.connection_pool.disconnect()  # a pool we gave it: ours to close

    async def read(self, key: str, after: str, count: int, block_ms: int) -> list[Entry]:
        """Entries after id ``after``, waiting up to ``block_ms`` for the first one."""
        found: Any = await self.blocking.xread({key: after}, count=count, block=block_ms)
        return cast(list[Entry], found[0][1]) if found else []

    async def tail(self, key: str) -> Entry | None:
        """The stream's newest entry."""
        found: Any = await self.redis.xrevrange(key, count=1)
        return cast(Entry, found[0]) if found else None

    async def entries(self, key: str) -> list[Entry]:
        """The whole stream (bounded by ``stream_maxlen``)."""
        return cast(list[Entry], await self.redis.xrange(key))

    async def text(self, key: str) -> str | None:
        return cast(str | None, await self.redis.get(key))

    async def meta(self, turn_id: str) -> dict[str, str]:
        """A turn's metadata hash (empty when unknown)."""
        return cast(dict[str, str], await self.redis.hgetall(self.keys.meta(turn_id)))
