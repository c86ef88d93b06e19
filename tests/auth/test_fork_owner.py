"""Forks and history pages belong to the session's owner: bob can neither fork alice's
session, nor fork his own at one of alice's turns, nor page through her history (404, as
for anything of another user)."""

from __future__ import annotations

from tests.auth.conftest import Clients
from tests.factories import create_room, create_session


async def test_bob_cannot_fork_alices_session_or_turn(users: Clients) -> None:
    room = await create_room(users.alice, ["a"])
    session = await create_session(users.alice, room["id"])
    turn = await users.alice.post(f"/v1/sessions/{session['id']}/turns", json={"message": "hi"})
    assert turn.status_code == 201, turn.text
    body = {"turn_id": turn.json()["id"]}
    assert (
        await users.bob.post(f"/v1/sessions/{session['id']}/fork", json=body)
    ).status_code == 404
    bobs_room = await create_room(users.bob, ["b"])
    bobs = await create_session(users.bob, bobs_room["id"])
    assert (await users.bob.post(f"/v1/sessions/{bobs['id']}/fork", json=body)).status_code == 404
    history = f"/v1/sessions/{session['id']}/history"
    assert (await users.bob.get(history)).status_code == 404
    assert (await users.alice.get(history)).json()["items"][0]["id"] == body["turn_id"]
    mine = await users.alice.post(f"/v1/sessions/{session['id']}/fork", json=body)
    assert mine.status_code == 201, mine.text
