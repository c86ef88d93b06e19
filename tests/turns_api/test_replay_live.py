"""A running turn cannot be replayed (409) until it has finished; a cancelled one cannot
be replayed exactly (its record stops mid-call): 409 too. On a real server, so the test
can ask while the turn's stream is open."""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.sse import open_stream
from tests.turns_api.conftest import LiveServer

SLOW = " ".join(f"w{i}" for i in range(40))


async def test_running_then_cancelled_turn_is_409(
    live: LiveServer, scripted: ScriptedProvider
) -> None:
    scripted.script(SLOW, agent="alpha", chunk_delay_s=0.05)
    session = await live.session(["alpha"])
    url = f"/v1/sessions/{session}/turns"
    async with open_stream(live.http, url, method="POST", json={"message": "go"}) as stream:
        await stream.until("delta", "alpha")
        turn_id = stream.seen[0][1]["turn_id"]
        running = await live.http.post(f"/v1/turns/{turn_id}/replay", json={})
        assert running.status_code == 409, running.text
        assert "still running" in running.json()["detail"]
        cancelled = await live.http.post(f"/v1/turns/{turn_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        await stream.rest()
    response = await live.http.post(f"/v1/turns/{turn_id}/replay", json={})
    assert response.status_code == 409, response.text
    assert "cannot be replayed exactly" in response.json()["detail"]
    assert "cancelled" in response.json()["detail"]
