"""Shutdown: refuse new turns, let running ones finish for the grace period, cancel and
record the rest; checked afterwards through a fresh app on the same database."""

from __future__ import annotations

import asyncio

import httpx
from asgi_lifespan import LifespanManager

from pantheon.db.migrations import upgrade
from pantheon.live.registry import LiveTurnRegistry
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import Settings, TurnSettings
from tests.factories import create_room, create_session
from tests.sse import SSE_HEADERS as SSE
from tests.sse import events_of, open_stream, types
from tests.turns_api.apps import running_client
from tests.waiting import until

SLOW = " ".join(f"w{i}" for i in range(40))  # 2 s at 0.05 s a chunk: past the grace


async def _sessions(http: httpx.AsyncClient, key: str, count: int = 1) -> list[str]:
    room = await create_room(http, [key], mode="roundtable")
    return [(await create_session(http, room["id"]))["id"] for _ in range(count)]


async def test_shutdown_cancels_what_outlives_the_grace_and_records_everything(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="slow", purpose="specialist", chunk_delay_s=0.05)
    # The quick turn ends inside the grace, the slow one (2 s) outlives it.
    scripted.script("quick answer", agent="quick", purpose="specialist", delay_s=0.3)
    chosen = settings.model_copy(update={"turns": TurnSettings(shutdown_grace_s=1.0)})
    await upgrade(chosen.resolved_database_url)
    app = create_app(chosen, scripted=scripted)
    lifespan = LifespanManager(app)
    await lifespan.__aenter__()
    transport = httpx.ASGITransport(app=app)
    exited = False
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            (slow,) = await _sessions(http, "slow")
            quick, late = await _sessions(http, "quick", 2)
            # Streamed POSTs: each answer is the whole stream, buffered by ASGITransport.
            posts = [
                asyncio.create_task(
                    http.post(f"/v1/sessions/{s}/turns", json={"message": "go"}, headers=SSE)
                )
                for s in (slow, quick)
            ]
            await until(lambda: len(scripted.requests) == 2)  # both turns are calling
            registry: LiveTurnRegistry = app.state.services.live_turns
            # Read from the registry, not by a probing POST that could start a new turn
            # once the quick one has ended on a slow machine.
            running = {t.session_id: t.turn_id for t in registry.running()}
            slow_id, quick_id = running[slow], running[quick]
            exiting = asyncio.create_task(lifespan.__aexit__(None, None, None))
            exited = True
            await until(lambda: not registry.accepting)
            assert {t.turn_id for t in registry.running()} == {slow_id, quick_id}
            refused = await http.post(f"/v1/sessions/{late}/turns", json={"message": "late"})
            assert refused.status_code == 503, refused.text
            await exiting
            answers = await asyncio.gather(*posts)
    finally:
        if not exited:
            await lifespan.__aexit__(None, None, None)

    # Each client saw its turn through to the end, after the commit.
    finals = [events_of(answer)[-1][1] for answer in answers]
    assert [(f["type"], f["status"]) for f in finals] == [
        ("turn_completed", "cancelled"),
        ("turn_completed", "completed"),
    ]
    async with running_client(settings, scripted) as fresh:
        cancelled = (await fresh.get(f"/v1/turns/{slow_id}")).json()
        assert cancelled["status"] == "cancelled"
        assert cancelled["output"].startswith("Slow: w0 w1 ")
        assert cancelled["output"].endswith(" [cancelled]")
        assert [c["status"] for c in cancelled["llm_calls"]] == ["cancelled"]
        completed = (await fresh.get(f"/v1/turns/{quick_id}")).json()
        assert completed["status"] == "completed"
        assert completed["output"] == "Quick: quick answer"
        # The refused turn left nothing behind.
        assert (await fresh.get(f"/v1/sessions/{late}/turns")).json()["total"] == 0
        async with open_stream(fresh, f"/v1/turns/{slow_id}/events") as replay:
            events = await replay.rest()
    assert types(events)[0] == "turn_started"
    assert events[-1][1]["type"] == "turn_completed"
    assert events[-1][1]["status"] == "cancelled"
    (slow_call,) = scripted.calls(agent="slow")
    assert slow_call.cancelled
