"""The live-turn backend contract, run against both backends (in-process and real Redis):
what a client can rely on whichever one a deployment uses (ADR 0010, docs/sse.md)."""

from __future__ import annotations

import asyncio

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session
from tests.live.conftest import LiveApp
from tests.sse import open_stream, types
from tests.sse_client import read_events, stream_turn
from tests.waiting import until

# SQLite is enough here: the database is the record, the backend is what is compared.
pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


async def _session(live_app: LiveApp, agents: list[str]) -> str:
    _app, http = live_app
    room = await create_room(http, agents)
    return str((await create_session(http, room["id"]))["id"])


async def test_a_stream_is_numbered_and_ends_once(
    live_app: LiveApp, scripted: ScriptedProvider
) -> None:
    _app, http = live_app
    scripted.script("one two three", agent="alpha")
    session = await _session(live_app, ["alpha", "beta"])
    events = await stream_turn(http, session, {"message": "hi", "mode": "roundtable"})
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1))
    assert types(events).count("turn_completed") == 1
    assert types(events)[-1] == "turn_completed"
    replayed = await read_events(http, events[0][1]["turn_id"])
    assert replayed == events  # the record replays what was streamed


async def test_a_follower_resumes_after_any_event(
    live_app: LiveApp, scripted: ScriptedProvider
) -> None:
    _app, http = live_app
    scripted.script("a b c d e f", agent="alpha", chunk_delay_s=0.05)
    session = await _session(live_app, ["alpha"])
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(http, url, method="POST", json={"message": "hi"}) as first:
        head = await first.until("delta")
        turn_id = head[0][1]["turn_id"]
        resumed = await read_events(http, turn_id, headers={"Last-Event-ID": str(head[-1][0])})
        whole = head + await first.rest()
    assert resumed == whole[len(head) :]


async def test_one_running_turn_per_session_and_keys_join(
    live_app: LiveApp, scripted: ScriptedProvider
) -> None:
    app, http = live_app
    scripted.script("a b c d e f", agent="alpha", chunk_delay_s=0.1)
    session = await _session(live_app, ["alpha"])
    url, key = f"/v1/sessions/{session}/turns", {"Idempotency-Key": "k1"}
    first = asyncio.create_task(http.post(url, json={"message": "hi"}, headers=key))
    await until(app.state.services.live_turns.running)
    busy = await http.post(url, json={"message": "other"})
    assert busy.status_code == 409, busy.text
    changed = await http.post(url, json={"message": "other"}, headers=key)
    assert changed.status_code == 422, changed.text
    joined = await http.post(url, json={"message": "hi"}, headers=key)
    assert joined.status_code == 201, joined.text
    assert joined.json()["id"] == (await first).json()["id"] == busy.json()["running_turn_id"]


async def test_cancel_stops_the_turn_and_keeps_what_it_made(
    live_app: LiveApp, scripted: ScriptedProvider
) -> None:
    app, http = live_app
    scripted.script(" ".join(f"w{i}" for i in range(40)), agent="alpha", chunk_delay_s=0.05)
    session = await _session(live_app, ["alpha"])
    post = asyncio.create_task(http.post(f"/v1/sessions/{session}/turns", json={"message": "hi"}))
    await until(app.state.services.live_turns.running)
    (running,) = app.state.services.live_turns.running()
    await until(lambda: any(p.event.type == "delta" for p in running.events))
    cancelled = await http.post(f"/v1/turns/{running.turn_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    answer = (await post).json()
    assert answer["status"] == "cancelled"
    (spoken,) = [m for m in answer["messages"] if m["role"] == "assistant"]
    assert spoken["content"].startswith("w0")  # what it produced before the cancel is kept
    events = await read_events(http, running.turn_id)
    assert types(events)[-1] == "turn_completed"
    assert events[-1][1]["status"] == "cancelled"
    assert not app.state.services.live_turns.running()
