"""The dead-replica sweeper: of several replicas sweeping at once, exactly one records an
abandoned turn, and its stream ends with the same ``error`` / ``interrupted`` event."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

import httpx
import pytest
from fastapi import FastAPI

from pantheon.db.base import utcnow
from pantheon.engine.events import (
    AgentStartedEvent,
    DeltaEvent,
    TurnEvent,
    TurnStartedEvent,
    event_to_json,
)
from pantheon.live.interrupted import record_interrupted
from pantheon.live.meta import TurnMeta
from pantheon.live.redis.mirror import DATA_FIELD, END_FIELD, entry_id
from pantheon.live.redis.store import RedisStore
from pantheon.live.redis.sweeper import Sweeper
from pantheon.settings import RedisSettings
from tests.factories import create_room, create_session
from tests.redis_server import RedisServer

pytestmark = [pytest.mark.redis, pytest.mark.parametrize("backend", ["sqlite"], indirect=True)]


async def _abandon(store: RedisStore, meta: TurnMeta, events: list[TurnEvent]) -> None:
    """What a replica that died mid-turn leaves in Redis: metadata, a stream without an
    end, a running-set entry whose lease expiry has passed, no lease."""
    keys, turn_id = store.keys, meta.turn_id
    await store.redis.hset(
        keys.meta(turn_id),
        mapping={"turn_id": turn_id, "session_id": meta.session_id,
                 "owner_id": meta.owner_id, "meta": meta.to_json()},
    )  # fmt: skip
    for seq, event in enumerate(events, start=1):
        await store.redis.xadd(
            keys.events(turn_id), {DATA_FIELD: event_to_json(event)}, id=entry_id(seq)
        )
    await store.redis.zadd(keys.running, {turn_id: 0})


async def test_of_several_sweepers_exactly_one_records_the_turn(
    app: FastAPI, client: httpx.AsyncClient, redis: RedisServer
) -> None:
    room = await create_room(client, ["alpha"])
    session = (await create_session(client, room["id"]))["id"]
    turn_id = str(uuid.uuid4())
    meta = TurnMeta(
        turn_id=turn_id, session_id=session, owner_id=str(app.state.services.local_user_id),
        mode=room["mode"], message="tell me", created_at=utcnow(),
    )  # fmt: skip
    events: list[TurnEvent] = [
        TurnStartedEvent(turn_id=turn_id, session_id=session, mode=room["mode"], agents=["alpha"]),
        AgentStartedEvent(turn_id=turn_id, agent_key="alpha", agent_name="Alpha"),
        DeltaEvent(turn_id=turn_id, agent_key="alpha", text="half an "),
        DeltaEvent(turn_id=turn_id, agent_key="alpha", text="answer"),
    ]
    store = RedisStore(redis.url, RedisSettings(), turn_timeout_s=600)
    recorded: list[bool] = []

    async def record(meta: TurnMeta, texts: Sequence[str]) -> bool:
        result = await record_interrupted(app.state.services.db, meta, texts)
        recorded.append(result)
        return result

    try:
        await _abandon(store, meta, events)
        sweepers = [Sweeper(store, record, lambda _t: False) for _ in range(4)]
        await asyncio.gather(*(s.sweep_once() for s in sweepers))
        await asyncio.gather(*(s.sweep_once() for s in sweepers))  # a later sweep: nothing left
        entries = await store.entries(store.keys.events(turn_id))
        still_running = await store.redis.zscore(store.keys.running, turn_id)
    finally:
        await store.aclose()

    assert recorded == [True]
    assert END_FIELD in entries[-1][1]
    assert entries[-1][0] == entry_id(len(events) + 1, end=True)
    final = entries[-2][1][DATA_FIELD]
    assert '"code":"interrupted"' in final.replace(" ", "")
    assert still_running is None
    turn = (await client.get(f"/v1/turns/{turn_id}")).json()
    assert (turn["status"], turn["message"]) == ("interrupted", "tell me")
    assert [m["content"] for m in turn["messages"]] == ["tell me", "half an answer"]
    replay = await client.get(f"/v1/turns/{turn_id}/events")
    assert replay.status_code == 200
