"""Migration 0002 moves every recorded event log between its two shapes without loss:
per-event rows (0001) and one compressed row per turn (0002), both ways."""

from __future__ import annotations

import json

from sqlalchemy import text

from pantheon.db.engine import create_engine
from pantheon.db.migrations import downgrade, upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.factories import create_room, create_session
from tests.sse_client import read_events, stream_turn
from tests.turns_api.apps import running_client


async def test_event_logs_survive_downgrade_and_upgrade(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    scripted.script("several words of answer", agent="alpha")
    async with running_client(settings, scripted) as client:
        room = await create_room(client, ["alpha", "beta"], mode="roundtable")
        session = (await create_session(client, room["id"]))["id"]
        streamed = await stream_turn(client, session, {"message": "hi"})
    turn_id = streamed[0][1]["turn_id"]

    await downgrade(settings.resolved_database_url, "0001_initial")
    engine = create_engine(settings.resolved_database_url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT seq, type, data FROM turn_events"))).all()
    finally:
        await engine.dispose()
    by_seq = sorted(rows)
    assert [(seq, json.loads(data)) for seq, _, data in by_seq] == streamed
    assert [kind for _, kind, _ in by_seq] == [data["type"] for _, data in streamed]

    await upgrade(settings.resolved_database_url)
    async with running_client(settings, scripted) as client:
        assert await read_events(client, turn_id) == streamed
        resumed = await read_events(client, turn_id, headers={"Last-Event-ID": "3"})
    assert resumed == streamed[3:]
