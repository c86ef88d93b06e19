"""An admin's keys routes: list a user's keys (prefixes only), create one (the whole key
shown once, and it works), revoke one (401 on the next request). Non-admin keys get 403,
unknown users and keys 404, and a key id never reaches another user's key."""

from __future__ import annotations

import uuid

from pantheon.users.keys import prefix_of
from tests.auth.conftest import Clients, client_for

KEY_FIELDS = {"id", "prefix", "created_at", "revoked_at"}


async def user_id(users: Clients, login: str) -> str:
    listed = (await users.root.get("/v1/admin/users", params={"limit": 200})).json()
    return str(next(u["id"] for u in listed["items"] if u["login"] == login))


async def test_an_admin_creates_a_key_that_works_and_revokes_it(users: Clients) -> None:
    alice = await user_id(users, "alice")
    url = f"/v1/admin/users/{alice}/keys"
    before = (await users.root.get(url)).json()
    assert [k["prefix"] for k in before["items"]] == [prefix_of(users.keys["alice"])]
    assert before["total"] == 1
    assert set(before["items"][0]) == KEY_FIELDS  # never the key, never its hash

    created = await users.root.post(url)
    assert created.status_code == 201, created.text
    made = created.json()
    assert set(made) == KEY_FIELDS | {"key"}
    assert made["prefix"] == prefix_of(made["key"])
    assert made["revoked_at"] is None
    async with client_for(users.app, made["key"]) as new:
        me = await new.get("/v1/me")
        assert me.status_code == 200
        assert me.json()["login"] == "alice"

        listed = (await users.root.get(url)).json()["items"]
        assert [k["id"] for k in listed] == [before["items"][0]["id"], made["id"]]
        assert made["key"] not in str(listed)
        assert made["key"] not in (await users.root.get("/v1/admin/users")).text

        gone = await users.root.delete(f"{url}/{made['id']}")
        assert gone.status_code == 204
        refused = await new.get("/v1/me")
        assert refused.status_code == 401
        assert "revoked" in refused.json()["detail"]
    assert (await users.alice.get("/v1/me")).status_code == 200  # her other key still works
    listed = (await users.root.get(url)).json()["items"]
    revoked = next(k for k in listed if k["id"] == made["id"])
    assert revoked["revoked_at"] is not None
    again = await users.root.delete(f"{url}/{made['id']}")
    assert again.status_code == 204  # revoking twice keeps the first time
    after = next(k for k in (await users.root.get(url)).json()["items"] if k["id"] == made["id"])
    assert after["revoked_at"] == revoked["revoked_at"]


async def test_a_key_id_of_another_user_is_404_and_stays_live(users: Clients) -> None:
    alice, bob = await user_id(users, "alice"), await user_id(users, "bob")
    alices_key = (await users.root.get(f"/v1/admin/users/{alice}/keys")).json()["items"][0]
    wrong = await users.root.delete(f"/v1/admin/users/{bob}/keys/{alices_key['id']}")
    assert wrong.status_code == 404
    assert wrong.json()["code"] == "not_found"
    assert "API key" in wrong.json()["detail"]
    assert (await users.alice.get("/v1/me")).status_code == 200


async def test_unknown_users_and_keys_are_404(users: Clients) -> None:
    alice = await user_id(users, "alice")
    nobody = str(uuid.uuid4())
    for method, path in (
        ("GET", f"/v1/admin/users/{nobody}/keys"),
        ("POST", f"/v1/admin/users/{nobody}/keys"),
        ("DELETE", f"/v1/admin/users/{nobody}/keys/{nobody}"),
        ("GET", "/v1/admin/users/not-a-user/keys"),
        ("DELETE", f"/v1/admin/users/{alice}/keys/{nobody}"),
        ("DELETE", f"/v1/admin/users/{alice}/keys/not-a-key"),
    ):
        response = await users.root.request(method, path)
        assert response.status_code == 404, (method, path)
        assert "not found" in response.json()["detail"], (method, path)


async def test_only_admins_manage_keys(users: Clients) -> None:
    alice = await user_id(users, "alice")
    alices_key = (await users.root.get(f"/v1/admin/users/{alice}/keys")).json()["items"][0]
    for method, path in (
        ("GET", f"/v1/admin/users/{alice}/keys"),
        ("POST", f"/v1/admin/users/{alice}/keys"),
        ("DELETE", f"/v1/admin/users/{alice}/keys/{alices_key['id']}"),
    ):
        for caller in (users.alice, users.bob):  # not even for oneself
            response = await caller.request(method, path)
            assert response.status_code == 403, (method, path)
            assert "admin" in response.json()["detail"]
        assert (await users.anon.request(method, path)).status_code == 401
    listed = (await users.root.get(f"/v1/admin/users/{alice}/keys")).json()["items"]
    assert [(k["id"], k["revoked_at"]) for k in listed] == [(alices_key["id"], None)]
