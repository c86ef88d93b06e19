"""One running turn per session, and Idempotency-Key: retries never run a turn twice.

Through HTTP on a real server (``live``), so a retry can arrive while the turn streams.
"""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.sse import open_stream, types, wait_finished
from tests.turns_api.conftest import LiveServer

SLOW = " ".join(f"w{i}" for i in range(12))


async def test_second_post_while_a_turn_runs_is_409_naming_it(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="alpha", purpose="specialist", chunk_delay_s=0.04)
    session = await live.session(["alpha"], mode="roundtable")
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": "first"}) as stream:
        turn_id = (await stream.until("delta"))[0][1]["turn_id"]
        calls_before = list(scripted.requests)
        for headers in ({}, {"Accept": "text/event-stream"}, {"Idempotency-Key": "other"}):
            second = await live.http.post(url, json={"message": "second"}, headers=headers)
            assert second.status_code == 409, second.text
            assert second.json()["running_turn_id"] == turn_id
            assert turn_id in second.json()["detail"]
        # No LLM call was made for the refused turns.
        assert [r.request for r in scripted.requests] == [r.request for r in calls_before]
        await stream.rest()
    assert types(stream.seen)[-1] == "turn_completed"
    # Once the turn has finished the session takes turns again.
    third = await live.http.post(url, json={"message": "third"})
    assert third.status_code == 201, third.text
    assert len(scripted.calls(purpose="specialist")) == 2


async def test_idempotent_retry_joins_the_running_turn_then_returns_it(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="alpha", purpose="specialist", chunk_delay_s=0.04)
    session = await live.session(["alpha"], mode="roundtable")
    url, body, key = (
        f"/v1/sessions/{session}/turns",
        {"message": "hello"},
        {"Idempotency-Key": "k1"},
    )
    async with open_stream(live.http, url, method="POST", json=body, headers=key) as first:
        turn_id = (await first.until("delta"))[0][1]["turn_id"]
        # A retry while the turn runs joins its stream from the start.
        async with open_stream(live.http, url, method="POST", json=body, headers=key) as retry:
            joined = await retry.rest()
        # The same key with another body is refused, running or not.
        other = await live.http.post(url, json={"message": "changed"}, headers=key)
        assert other.status_code == 422, other.text
        await first.rest()
    assert joined == first.seen
    assert joined[0][1]["turn_id"] == turn_id
    assert types(joined)[-1] == "turn_completed"

    # After completion: the same turn, as JSON or as a replayed stream.
    again = await live.http.post(url, json=body, headers=key)
    assert again.status_code in (200, 201), again.text
    assert again.json()["id"] == turn_id
    assert again.json()["status"] == "completed"
    async with open_stream(live.http, url, method="POST", json=body, headers=key) as replay:
        assert await replay.rest() == first.seen
    other = await live.http.post(url, json={"message": "changed"}, headers=key)
    assert other.status_code == 422, other.text
    # The provider ran it once; the session has one turn.
    assert len(scripted.calls(purpose="specialist")) == 1
    listed = (await live.http.get(f"/v1/sessions/{session}/turns")).json()
    assert [t["id"] for t in listed["items"]] == [turn_id]


async def test_json_retry_while_running_waits_for_the_same_turn(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="alpha", purpose="specialist", chunk_delay_s=0.04)
    session = await live.session(["alpha"], mode="roundtable")
    url, body = f"/v1/sessions/{session}/turns", {"message": "hello"}
    key = {"Idempotency-Key": "k"}
    async with open_stream(live.http, url, method="POST", json=body, headers=key) as first:
        turn_id = (await first.until("delta"))[0][1]["turn_id"]
        retry = await live.http.post(url, json=body, headers=key)
        await first.rest()
    assert retry.json()["id"] == turn_id
    assert retry.json()["status"] == "completed"
    assert retry.json()["output"] == f"Alpha: {SLOW}"
    assert len(scripted.calls(purpose="specialist")) == 1


async def test_the_same_key_on_another_session_is_independent(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    one = await live.session(["alpha"], mode="roundtable")
    two = await live.session(["beta"], mode="roundtable")
    body, key = {"message": "hello"}, {"Idempotency-Key": "shared"}
    first = await live.http.post(f"/v1/sessions/{one}/turns", json=body, headers=key)
    second = await live.http.post(f"/v1/sessions/{two}/turns", json=body, headers=key)
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] != second.json()["id"]
    assert first.json()["session_id"] == one
    assert second.json()["session_id"] == two
    assert [r.request.agent_key for r in scripted.calls(purpose="specialist")] == ["alpha", "beta"]
    assert (await wait_finished(live.http, second.json()["id"]))["status"] == "completed"
