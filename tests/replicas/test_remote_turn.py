"""Following another replica's turn whose stream already ended: a JSON retry that looks just
as the turn ends, or a resume past its last event, returns instead of waiting forever."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from pantheon.live.redis.mirror import DATA_FIELD, END_FIELD, entry_id
from pantheon.live.redis.remote import RemoteTurn
from pantheon.live.redis.store import RedisStore
from pantheon.settings import RedisSettings
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis
BOUND_S = 30  # far past one quiet read (block_s): reaching it means the wait never ends


@pytest.fixture
async def ended(redis: RedisServer) -> AsyncIterator[RemoteTurn]:
    """A turn of two events whose stream has its end marker, as its owner leaves it."""
    store = RedisStore(redis.url, RedisSettings(block_s=0.2), turn_timeout_s=60)
    turn_id, events = str(uuid.uuid4()), store.keys.events
    for seq in (1, 2):
        await store.redis.xadd(events(turn_id), {DATA_FIELD: f'"e{seq}"'}, id=entry_id(seq))
    await store.redis.xadd(events(turn_id), {END_FIELD: "1"}, id=entry_id(2, end=True))

    async def unrecorded(_turn_id: str) -> list[str] | None:
        return None

    meta = {"turn_id": turn_id, "session_id": str(uuid.uuid4()), "owner_id": str(uuid.uuid4())}
    try:
        yield RemoteTurn.from_meta(store, unrecorded, asyncio.Event(), meta)
    finally:
        await store.aclose()


async def test_waiting_on_a_turn_whose_stream_just_ended_returns(ended: RemoteTurn) -> None:
    await asyncio.wait_for(ended.wait_finished(), BOUND_S)


async def test_a_resume_past_the_last_event_ends(ended: RemoteTurn) -> None:
    async def drain(after: int) -> list[tuple[int, str]]:
        return [(item.seq, item.data) async for item in ended.stream(after)]

    assert await asyncio.wait_for(drain(0), BOUND_S) == [(1, '"e1"'), (2, '"e2"')]
    assert await asyncio.wait_for(drain(2), BOUND_S) == []
    assert await asyncio.wait_for(drain(7), BOUND_S) == []
