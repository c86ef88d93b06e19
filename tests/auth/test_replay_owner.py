"""A replay belongs to the turn's owner: bob's replay of alice's turn is a 404, as if the
turn did not exist, and runs nothing."""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import Clients
from tests.factories import create_room, create_session
from tests.sse_client import stream_turn


async def test_bob_cannot_replay_alices_turn(users: Clients, scripted: ScriptedProvider) -> None:
    room = await create_room(users.alice, ["alpha"])
    session = await create_session(users.alice, room["id"])
    events = await stream_turn(users.alice, session["id"], {"message": "hi"})
    turn_id = events[0][1]["turn_id"]
    calls = len(scripted.requests)
    bob = await users.bob.post(f"/v1/turns/{turn_id}/replay", json={})
    assert bob.status_code == 404, bob.text
    assert len(scripted.requests) == calls
    alice = await users.alice.post(f"/v1/turns/{turn_id}/replay", json={})
    assert alice.status_code == 201, alice.text
    assert len(scripted.requests) == calls  # an exact replay calls nothing
