"""A turn recorded ``interrupted`` after its process died (by a sweeper or at the next
start) is counted once, by its mode, however many recorders race for it."""

from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

from pantheon.db.engine import Database
from pantheon.live.interrupted import record_interrupted
from tests.observability.scrape import grown, scrape
from tests.turns_api.test_interrupted_record import _meta, _session, _texts


async def test_an_interrupted_turn_is_counted_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    session_id = await _session(client)
    meta = _meta(session_id)
    texts = _texts(meta.turn_id, session_id)
    db: Database = app.state.services.db
    before = await scrape(client)
    results = await asyncio.gather(*(record_interrupted(db, meta, texts) for _ in range(3)))
    assert sorted(results) == [False, False, True]
    assert await record_interrupted(db, meta, texts) is False
    after = await scrape(client)
    counted = grown(before, after, "pantheon_turns_total", mode=meta.mode, status="interrupted")
    assert counted == 1
    assert grown(before, after, "pantheon_turns_total") == 1
