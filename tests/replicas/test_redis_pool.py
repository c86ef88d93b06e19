"""The Redis pools are bounded and make a burst wait for a connection instead of failing
(B9 saw ``Too many connections`` 503s at 128 turns in flight with an unbounded-looking
default pool of 100)."""

from __future__ import annotations

import asyncio

import pytest

from pantheon.live.redis.store import RedisStore
from pantheon.settings import RedisSettings
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis


async def test_more_blocking_reads_than_connections_wait_their_turn(redis: RedisServer) -> None:
    settings = RedisSettings(max_connections=4, timeout_s=5.0, block_s=1.0)
    store = RedisStore(redis.url, settings, turn_timeout_s=60.0)
    try:
        # Twelve 200 ms XREAD BLOCKs on four connections: three waves, all answered.
        reads = [store.read(f"k{i}", "0-0", 10, 200) for i in range(12)]
        assert await asyncio.gather(*reads) == [[] for _ in range(12)]
        commands = [store.redis.incr("burst") for _ in range(200)]
        assert sorted(await asyncio.gather(*commands)) == list(range(1, 201))
    finally:
        await store.aclose()
