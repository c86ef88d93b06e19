"""A same-key retry on another replica never follows a claim that is about to be given
back: a claim whose key's turn is already recorded is pending while its replica looks at
the record, and others wait that look out (the CI failure: a retry followed the given-back
turn, waited a lease for it, and answered 503 "could not be saved")."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence

import pytest

from pantheon.db.base import utcnow
from pantheon.live.meta import TurnMeta
from pantheon.live.redis.backend import RecordedWithKey, RedisLiveBackend
from pantheon.live.redis.remote import RecordedTurn
from pantheon.live.redis.store import RedisStore
from pantheon.live.registry import LiveTurn, LiveTurnRegistry
from pantheon.settings import RedisSettings
from tests.redis_server import RedisServer
from tests.waiting import until

pytestmark = pytest.mark.redis
BOUND_S = 30


async def _nothing_recorded(_turn_id: str) -> list[str] | None:
    return None


async def _no_record(_meta: TurnMeta, _texts: Sequence[str]) -> bool:
    raise AssertionError("nothing is swept here")


def _backend(store: RedisStore, recorded_with_key: RecordedWithKey) -> RedisLiveBackend:
    registry = LiveTurnRegistry()
    return RedisLiveBackend(store, _nothing_recorded, _no_record, recorded_with_key, registry)


async def test_a_retry_elsewhere_does_not_follow_a_claim_given_back(
    redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    owner, session, key = uuid.uuid4(), str(uuid.uuid4()), "k"
    recorded = str(uuid.uuid4())  # the key's turn, committed just before this claim
    looking, answer = asyncio.Event(), asyncio.Event()

    async def slow_look(_session: str, _key: str) -> tuple[str, str | None]:
        looking.set()
        await answer.wait()
        return recorded, None

    async def quick_look(_session: str, _key: str) -> tuple[str, str | None]:
        return recorded, None

    stores = [RedisStore(redis.url, RedisSettings(), turn_timeout_s=60) for _ in range(2)]
    here, there = _backend(stores[0], slow_look), _backend(stores[1], quick_look)
    caplog.set_level(logging.DEBUG, logger="pantheon.live.redis.backend")
    try:
        claim = asyncio.create_task(here.claim(_turn(owner, session, key), _never_runs))
        await asyncio.wait_for(looking.wait(), BOUND_S)
        retry = asyncio.create_task(there.claim(_turn(owner, session, key), _never_runs))
        # The retry either follows the claim at once (the defect) or waits for its look.
        await until(lambda: retry.done() or "checking the record" in caplog.text, 3000)
        answer.set()
        given = await asyncio.wait_for(claim, BOUND_S)
        assert isinstance(given, RecordedTurn)
        followed = await asyncio.wait_for(retry, BOUND_S)
        assert isinstance(followed, RecordedTurn)
        assert followed.turn_id == recorded
        assert await stores[1].text(stores[1].keys.lease(session)) is None  # given back
    finally:
        for store in stores:
            await store.aclose()


def _turn(owner: uuid.UUID, session: str, key: str) -> LiveTurn:
    turn_id = str(uuid.uuid4())
    meta = TurnMeta(
        turn_id=turn_id, session_id=session, owner_id=str(owner), mode="standalone",
        message="go", created_at=utcnow(), idempotency_key=key,
    )  # fmt: skip
    return LiveTurn(turn_id, session, owner, idempotency_key=key, meta=meta)


async def _never_runs(_live: LiveTurn) -> None:
    raise AssertionError("the recorded turn is not run again")
