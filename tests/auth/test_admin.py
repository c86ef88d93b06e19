"""Admin routes: user list and usage for admin keys; 403 for every other key."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.auth.conftest import Clients
from tests.factories import create_room, create_session


async def _user_id(users: Clients, name: str) -> str:
    listed = (await users.root.get("/v1/admin/users", params={"limit": 200})).json()
    return str(next(u["id"] for u in listed["items"] if u["name"] == name))


async def test_non_admin_keys_get_403_on_admin_routes(users: Clients) -> None:
    alice_id = await _user_id(users, "alice")
    for path in ("/v1/admin/users", f"/v1/admin/users/{alice_id}/usage"):
        response = await users.bob.get(path)
        assert response.status_code == 403
        assert "admin" in response.json()["detail"]
        assert (await users.anon.get(path)).status_code == 401


async def test_admin_lists_users_with_key_prefixes_only(users: Clients) -> None:
    page = (await users.root.get("/v1/admin/users", params={"limit": 2})).json()
    assert page["limit"] == 2
    assert len(page["items"]) == 2
    assert page["total"] == 4  # local, alice, bob, root
    everyone = (await users.root.get("/v1/admin/users")).json()["items"]
    alice = next(u for u in everyone if u["name"] == "alice")
    assert alice["is_admin"] is False
    assert [k["prefix"] for k in alice["keys"]] == [users.keys["alice"][:11]]
    assert users.keys["alice"] not in str(everyone)


async def test_usage_per_model_and_day(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha", "beta"], manager_model="cheap")
    session = await create_session(users.alice, room["id"])
    url = f"/v1/sessions/{session['id']}/turns"
    turn = await users.alice.post(url, json={"message": "hi", "mode": "orchestrator"})
    assert turn.status_code == 201
    calls = turn.json()["llm_calls"]
    alice_id = await _user_id(users, "alice")
    usage = (await users.root.get(f"/v1/admin/users/{alice_id}/usage")).json()
    assert usage["total"]["calls"] == len(calls)
    assert usage["total"]["input_tokens"] == sum(c["input_tokens"] for c in calls)
    assert {m["model"] for m in usage["by_model"]} == {"cheap", "scripted"}
    today = datetime.now(UTC).date().isoformat()
    assert {d["day"] for d in usage["by_day"]} == {today}
    cheap = next(m for m in usage["by_model"] if m["model"] == "cheap")
    assert cheap["cost_usd"] > 0
    bob_id = await _user_id(users, "bob")
    assert (await users.root.get(f"/v1/admin/users/{bob_id}/usage")).json()["total"]["calls"] == 0
    missing = await users.root.get("/v1/admin/users/not-a-user/usage")
    assert missing.status_code == 404
