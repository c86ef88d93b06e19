"""Streams outlive their clients: disconnect, resume, several listeners, replay, keep-alive.

All through HTTP against a real server (``live``), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import SSESettings
from tests.sse import Event, open_stream, types, wait_finished
from tests.turns_api.conftest import LiveServer, Serve

ALPHA = "one two three four"
BETA = "five six"
MESSAGE = {"message": "go"}


def _script(scripted: ScriptedProvider, *, chunk_delay_s: float = 0.02) -> None:
    scripted.script(ALPHA, agent="alpha", purpose="specialist", chunk_delay_s=chunk_delay_s)
    scripted.script(BETA, agent="beta", purpose="specialist", chunk_delay_s=chunk_delay_s)


async def _events(live: LiveServer, turn_id: str, **kwargs: Any) -> list[Event]:
    async with open_stream(live.http, f"/v1/turns/{turn_id}/events", **kwargs) as stream:
        return await stream.rest()


async def _finished_turn(live: LiveServer, scripted: ScriptedProvider) -> list[Event]:
    """A finished roundtable turn's live sequence, as its POST streamed it."""
    _script(scripted, chunk_delay_s=0)
    session = await live.session(["alpha", "beta"], mode="roundtable")
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json=MESSAGE) as stream:
        return await stream.rest()


async def test_disconnect_after_first_delta_still_completes(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    _script(scripted, chunk_delay_s=0.05)
    session = await live.session(["alpha", "beta"], mode="roundtable")
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json=MESSAGE) as stream:
        seen = await stream.until("delta")
    turn_id = seen[0][1]["turn_id"]
    # The client is gone while the turn still runs (alpha has chunks left) ...
    assert (await live.http.get(f"/v1/turns/{turn_id}")).status_code == 409
    # ... and it finishes and commits all the same.
    detail = await wait_finished(live.http, turn_id)
    assert detail["status"] == "completed"
    assert detail["output"] == f"Alpha: {ALPHA}\n\nBeta: {BETA}"
    assert [m["content"] for m in detail["messages"]] == ["go", ALPHA, BETA]
    assert [r.cancelled for r in scripted.requests] == [False, False]
    replay = await _events(live, turn_id)
    assert replay[-1][1] | {"usage": None, "message_ids": None} == {
        "type": "turn_completed", "turn_id": turn_id, "status": "completed",
        "usage": None, "message_ids": None, "error_code": None,
    }  # fmt: skip


async def test_replay_after_completion_equals_the_live_sequence(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    streamed = await _finished_turn(live, scripted)
    assert [seq for seq, _ in streamed] == list(range(1, len(streamed) + 1))
    assert types(streamed)[0] == "turn_started"
    assert types(streamed)[-1] == "turn_completed"
    assert await _events(live, streamed[0][1]["turn_id"]) == streamed


@pytest.mark.parametrize("how", ["last_event_id", "after"])
async def test_resume_a_finished_turn_returns_exactly_the_missing_events(
    live: LiveServer, scripted: ScriptedProvider, how: str
) -> None:
    streamed = await _finished_turn(live, scripted)
    turn_id = streamed[0][1]["turn_id"]
    for n in (0, 3, len(streamed) - 1, len(streamed)):
        if how == "after":
            resumed = await _events(live, turn_id, params={"after": n})
        else:
            resumed = await _events(live, turn_id, headers={"Last-Event-ID": str(n)})
        assert resumed == streamed[n:]


async def test_resume_a_running_turn_returns_exactly_the_missing_events(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    _script(scripted, chunk_delay_s=0.05)
    session = await live.session(["alpha", "beta"], mode="roundtable")
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json=MESSAGE) as stream:
        first = await stream.until("delta")
    turn_id, last = first[0][1]["turn_id"], first[-1][0]
    events_url = f"/v1/turns/{turn_id}/events"
    # Resume both ways while the turn still runs: each picks up right after ``last``.
    async with (
        open_stream(live.http, events_url, headers={"Last-Event-ID": str(last)}) as by_header,
        open_stream(live.http, events_url, params={"after": last}) as by_query,
    ):
        assert (await live.http.get(f"/v1/turns/{turn_id}")).status_code == 409
        resumed_header, resumed_query = await by_header.rest(), await by_query.rest()
    everything = await _events(live, turn_id)
    assert first == everything[:last]
    assert resumed_header == everything[last:]
    assert resumed_query == everything[last:]
    assert types(everything)[-1] == "turn_completed"


async def test_two_listeners_on_a_running_turn_each_get_the_whole_sequence(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    _script(scripted, chunk_delay_s=0.03)
    session = await live.session(["alpha", "beta"], mode="roundtable")
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json=MESSAGE) as poster:
        turn_id = (await poster.until("turn_started"))[0][1]["turn_id"]
        events_url = f"/v1/turns/{turn_id}/events"
        async with (
            open_stream(live.http, events_url) as one,
            open_stream(live.http, events_url) as two,
        ):
            got = await asyncio.gather(poster.rest(), one.rest(), two.rest())
    everything = await _events(live, turn_id)
    assert [poster.seen, one.seen, two.seen] == [everything] * 3
    assert got[1] == got[2] == everything
    assert types(everything).count("delta") == 6


async def test_invalid_last_event_id_is_422(live: LiveServer, scripted: ScriptedProvider) -> None:
    streamed = await _finished_turn(live, scripted)
    turn_id = streamed[0][1]["turn_id"]
    response = await live.http.get(f"/v1/turns/{turn_id}/events", headers={"Last-Event-ID": "abc"})
    assert response.status_code == 422
    assert "Last-Event-ID" in response.json()["detail"]
    response = await live.http.get(f"/v1/turns/{turn_id}/events", params={"after": -1})
    assert response.status_code == 422


async def test_keepalive_comments_are_sent_while_an_agent_is_slow(
    serve: Serve, scripted: ScriptedProvider
) -> None:
    scripted.script("slow answer", agent="alpha", purpose="specialist", delay_s=0.3)
    async with serve(sse=SSESettings(keepalive_s=0.05)) as live:
        session = await live.session(["alpha"], mode="roundtable")
        url = f"/v1/sessions/{session}/turns"
        headers = {"Accept": "text/event-stream"}
        async with live.http.stream("POST", url, json=MESSAGE, headers=headers) as response:
            raw = "".join([text async for text in response.aiter_text()])
    lines = raw.splitlines()
    pings = [line for line in lines if line.startswith(": ping")]
    assert len(pings) >= 2, raw
    assert any(line.startswith("data: ") and "turn_completed" in line for line in lines)
