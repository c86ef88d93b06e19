"""The replica's one writer of turn events to Redis: several turns' events in one round
trip, each turn's outcome its own (a lost or refused stream stops only that turn's
sharing), a Redis failure reported to every turn in the batch, and a turn that waits on
its events is not held by the gathering window."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from redis.asyncio import Redis

from pantheon.live.redis.store import RedisStore
from pantheon.live.redis.writer import MirrorWriter
from pantheon.settings import RedisSettings
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis


class FakeMirror:
    """A turn's queued entries, and what the writer told it."""

    def __init__(self, key: str, entries: list[tuple[str, str]], must_exist: bool = False) -> None:
        self.key = key
        self.fields = [part for entry, data in entries for part in (entry, "d", data)]
        self.must_exist = must_exist
        self.outcomes: list[tuple[int, str | None]] = []
        self.heard = asyncio.Event()

    def take(self) -> tuple[bool, int, list[str]]:
        fields, self.fields = self.fields, []
        return self.must_exist, 0 if self.must_exist else 60_000, fields

    def wrote(self, added: int, error: str | None) -> None:
        self.outcomes.append((added, error))
        self.heard.set()


@pytest.fixture
async def store(redis: RedisServer) -> AsyncIterator[RedisStore]:
    settings = RedisSettings().model_copy(update={"mirror_window_ms": 60_000.0})
    store = RedisStore(redis.url, settings, turn_timeout_s=60)
    yield store
    await store.aclose()


@pytest.fixture
async def writer(store: RedisStore) -> AsyncIterator[MirrorWriter]:
    writer = MirrorWriter(store)
    task = asyncio.create_task(writer.run())
    yield writer
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def counting(store: RedisStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the writer's round trips."""
    calls: list[int] = []
    append = store.append

    async def counted(**kwargs: Any) -> Any:
        calls.append(len(kwargs["keys"]))
        return await append(**kwargs)

    monkeypatch.setattr(store, "append", counted)
    return calls


async def written(redis: RedisServer, key: str) -> list[tuple[str, dict[str, str]]]:
    client = Redis.from_url(redis.url, decode_responses=True)
    try:
        return cast(list[tuple[str, dict[str, str]]], await client.xrange(key))
    finally:
        await client.aclose()


async def test_several_turns_events_go_in_one_round_trip_in_order(
    store: RedisStore, writer: MirrorWriter, redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting(store, monkeypatch)
    one = FakeMirror("t:one", [("1-0", "a"), ("1-2", "internal"), ("2-0", "b")])
    two = FakeMirror("t:two", [("1-0", "x")])
    writer.queued(one)
    writer.queued(two)
    writer.hurry()  # the window (60 s here) would otherwise gather first
    await asyncio.wait_for(asyncio.gather(one.heard.wait(), two.heard.wait()), 10)
    assert calls == [2]
    assert one.outcomes == [(3, None)]
    assert two.outcomes == [(1, None)]
    assert [(i, f["d"]) for i, f in await written(redis, "t:one")] == [
        ("1-0", "a"), ("1-2", "internal"), ("2-0", "b")
    ]  # fmt: skip
    assert [(i, f["d"]) for i, f in await written(redis, "t:two")] == [("1-0", "x")]


async def test_a_lost_or_refused_stream_stops_only_its_turn(
    writer: MirrorWriter, redis: RedisServer
) -> None:
    first = FakeMirror("t:refused", [("5-0", "a")])
    writer.queued(first)
    writer.hurry()
    await asyncio.wait_for(first.heard.wait(), 10)
    lost = FakeMirror("t:lost", [("2-0", "b")], must_exist=True)  # Redis restarted, say
    refused = FakeMirror("t:refused", [("3-0", "before the last")], must_exist=True)
    fine = FakeMirror("t:fine", [("1-0", "c")])
    for mirror in (lost, refused, fine):
        writer.queued(mirror)
    writer.hurry()
    await asyncio.wait_for(asyncio.gather(lost.heard.wait(), refused.heard.wait()), 10)
    await asyncio.wait_for(fine.heard.wait(), 10)
    assert lost.outcomes == [(0, "Redis lost the stream (restarted?)")]
    assert refused.outcomes == [(0, "Redis refused an event")]
    assert fine.outcomes == [(1, None)]
    assert await written(redis, "t:lost") == []
    assert [i for i, _ in await written(redis, "t:refused")] == ["5-0"]


async def test_redis_gone_is_told_to_every_turn_and_the_writer_goes_on(
    writer: MirrorWriter, redis: RedisServer
) -> None:
    await redis.stop()
    one, two = FakeMirror("t:a", [("1-0", "a")]), FakeMirror("t:b", [("1-0", "b")])
    writer.queued(one)
    writer.queued(two)
    writer.hurry()
    await asyncio.wait_for(asyncio.gather(one.heard.wait(), two.heard.wait()), 30)
    assert one.outcomes[0][0] == 0
    assert one.outcomes[0][1]
    assert two.outcomes[0][0] == 0
    assert two.outcomes[0][1]
    await redis.start()
    again = FakeMirror("t:c", [("1-0", "c")])
    writer.queued(again)
    writer.hurry()
    await asyncio.wait_for(again.heard.wait(), 30)
    assert again.outcomes == [(1, None)]
