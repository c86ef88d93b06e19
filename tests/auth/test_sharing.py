"""Sharing a room (SPEC "People and teams" > Sharing) through the public API: alice owns the
room, and shares it with a viewer and an editor; bob is no member. Every refusal names
its reason; nobody outside the room learns it exists, and nobody learns which user ids do.
Runs on SQLite and PostgreSQL like ``client``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.auth.conftest import Clients
from tests.auth.sharing_helpers import new_person, person_id, share, shared_with
from tests.auth.signin_helpers import set_status
from tests.factories import UNKNOWN_ID, create_agent, create_room


async def test_owner_shares_and_lists_members(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha"])
    vera = await new_person(users, "vera", "Vera Viewer")
    put = await share(users.alice, room["id"], vera.id, "viewer")
    assert put.status_code == 200, put.text
    member = put.json()
    assert member["id"] == vera.id
    assert (member["login"], member["display_name"], member["role"]) == (
        "vera", "Vera Viewer", "viewer",
    )  # fmt: skip
    assert set(member) == {"id", "login", "display_name", "role", "added_at"}
    listed = (await users.alice.get(f"/v1/rooms/{room['id']}/members")).json()
    assert listed["owner"]["login"] == "alice"
    assert set(listed["owner"]) == {"id", "login", "display_name"}
    assert [m["login"] for m in listed["items"]] == ["vera"]
    # the viewer sees the same list, and the room among theirs, marked as shared
    assert (await vera.http.get(f"/v1/rooms/{room['id']}/members")).json() == listed
    rooms = (await vera.http.get("/v1/rooms")).json()
    assert [(r["id"], r["access"]) for r in rooms["items"]] == [(room["id"], "viewer")]
    assert rooms["total"] == 1
    assert (await users.alice.get(f"/v1/rooms/{room['id']}")).json()["access"] == "owner"
    await vera.http.aclose()


async def test_changing_a_role_and_what_each_role_may_do(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha"], description="plans")
    url = f"/v1/rooms/{room['id']}"
    member = await shared_with(users, room["id"], "morgan", "viewer")
    refused = await member.http.patch(url, json={"description": "mine now"})
    assert refused.status_code == 403
    assert refused.json()["code"] == "forbidden"
    assert "viewer" in refused.json()["detail"]
    assert "editor" in refused.json()["detail"]

    promoted = await share(users.alice, room["id"], member.id, "editor")
    assert promoted.json()["role"] == "editor"
    changed = await member.http.patch(url, json={"description": "shared plans"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["access"] == "editor"
    own = await create_agent(member.http, "helper")
    added = await member.http.post(f"{url}/agents", json={"agent_id": own["id"]})
    assert added.status_code == 201, added.text
    assert [a["key"] for a in added.json()["agents"]] == ["alpha", "helper"]
    # only the owner deletes the room or changes who it is shared with
    for response in (
        await member.http.delete(url),
        await share(member.http, room["id"], await person_id(users.alice, "bob"), "viewer"),
        await member.http.delete(f"{url}/members/{await person_id(users.alice, 'alice')}"),
    ):
        assert response.status_code == 403, response.text
        assert "only the owner" in response.json()["detail"]
    assert (await users.alice.get(url)).json()["description"] == "shared plans"
    await member.http.aclose()


async def test_a_non_member_learns_nothing(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha"])
    bob_id = await person_id(users.alice, "bob")
    unknown = await users.bob.get(f"/v1/rooms/{UNKNOWN_ID}/members")
    for response in (
        await users.bob.get(f"/v1/rooms/{room['id']}"),
        await users.bob.get(f"/v1/rooms/{room['id']}/members"),
        await share(users.bob, room["id"], bob_id, "editor"),
        await users.bob.delete(f"/v1/rooms/{room['id']}/members/{bob_id}"),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["detail"] == unknown.json()["detail"].replace(
            UNKNOWN_ID, room["id"]
        )  # the same answer as for a room that does not exist
    assert (await users.bob.get("/v1/rooms")).json()["items"] == []


@pytest.mark.parametrize("status", ["disabled", "pending"])
async def test_sharing_with_nobody_or_an_inactive_user_is_the_same_404(
    users: Clients, status: str
) -> None:
    room = await create_room(users.alice)
    sleeper = await new_person(users, "sleeper")
    await sleeper.http.aclose()
    await set_status(users.app, "sleeper", status)
    answers: list[Any] = []
    for user_id in (sleeper.id, UNKNOWN_ID, "not-an-id"):
        response = await share(users.alice, room["id"], user_id, "viewer")
        assert response.status_code == 404, response.text
        answers.append(response.json())
    assert answers[0] == answers[1] == answers[2] == {"detail": "no such user", "code": "not_found"}
    listed = await users.alice.get(f"/v1/rooms/{room['id']}/members")
    assert listed.json()["items"] == []


async def test_sharing_with_yourself_or_an_unknown_role_is_422(users: Clients) -> None:
    room = await create_room(users.alice)
    alice_id = await person_id(users.alice, "alice")
    itself = await share(users.alice, room["id"], alice_id, "editor")
    assert itself.status_code == 422
    assert "you own room" in itself.json()["detail"]
    bob_id = await person_id(users.alice, "bob")
    for role in ("owner", "admin", ""):
        bad = await share(users.alice, room["id"], bob_id, role)
        assert bad.status_code == 422, bad.text
        assert "viewer" in bad.text
    missing = await users.alice.put(f"/v1/rooms/{room['id']}/members/{bob_id}", json={})
    assert missing.status_code == 422


async def test_removing_members_and_leaving(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha"])
    url = f"/v1/rooms/{room['id']}/members"
    vera = await shared_with(users, room["id"], "vera", "viewer")
    eddie = await shared_with(users, room["id"], "eddie", "editor")
    # a member may not remove another member, even as an editor
    refused = await eddie.http.delete(f"{url}/{vera.id}")
    assert refused.status_code == 403
    assert "only the owner" in refused.json()["detail"]
    # a member leaves by removing themselves
    assert (await vera.http.delete(f"{url}/{vera.id}")).status_code == 204
    assert (await vera.http.get(f"/v1/rooms/{room['id']}")).status_code == 404
    assert (await vera.http.delete(f"{url}/{vera.id}")).status_code == 404
    # the owner removes anyone; removing a non-member names the problem
    assert (await users.alice.delete(f"{url}/{eddie.id}")).status_code == 204
    gone = await users.alice.delete(f"{url}/{eddie.id}")
    assert gone.status_code == 404
    assert "not a member" in gone.json()["detail"]
    assert (await users.alice.get(url)).json()["items"] == []
    for member in (vera, eddie):
        assert (await member.http.get("/v1/rooms")).json()["items"] == []
        await member.http.aclose()


async def test_people_search(users: Clients) -> None:
    await (await new_person(users, "vera", "Vera Viewer")).http.aclose()
    await (await new_person(users, "walter", "Walt 100%_sure")).http.aclose()
    await (await new_person(users, "quiet", "Veronica")).http.aclose()
    await set_status(users.app, "quiet", "disabled")

    async def logins(q: str) -> list[str]:
        found = await users.bob.get("/v1/people", params={"q": q})
        assert found.status_code == 200, found.text
        return [p["login"] for p in found.json()["items"]]

    assert await logins("VER") == ["vera"]  # login or display name, any case; not disabled
    assert await logins("viewer") == ["vera"]
    assert await logins("%_") == ["walter"]  # wildcards are plain characters
    assert await logins("_") == ["walter"]
    assert await logins("nobody") == []
    item = (await users.bob.get("/v1/people", params={"q": "vera"})).json()["items"][0]
    assert set(item) == {"id", "login", "display_name"}  # no email, role or status
    assert (await users.bob.get("/v1/people")).status_code == 422
    assert (await users.anon.get("/v1/people", params={"q": "vera"})).status_code == 401


async def test_people_search_returns_at_most_twenty(users: Clients) -> None:
    for number in range(22):
        await (await new_person(users, f"crowd{number:02d}")).http.aclose()
    found = (await users.alice.get("/v1/people", params={"q": "crowd"})).json()["items"]
    assert [p["login"] for p in found] == [f"crowd{n:02d}" for n in range(20)]


async def test_an_editor_brings_only_their_own_or_the_owners_agents(users: Clients) -> None:
    room = await create_room(users.alice, ["alpha"])
    spare = await create_agent(users.alice, "spare")  # alice's, not yet in the room
    bobs = await create_agent(users.bob, "bobby")
    eddie = await shared_with(users, room["id"], "eddie", "editor")
    url = f"/v1/rooms/{room['id']}/agents"
    stranger = await eddie.http.post(url, json={"agent_id": bobs["id"]})
    assert stranger.status_code == 404
    assert stranger.json()["detail"] == f"agent {bobs['id']} not found"
    owners = await eddie.http.post(url, json={"agent_id": spare["id"]})
    assert owners.status_code == 201, owners.text
    assert [a["key"] for a in owners.json()["agents"]] == ["alpha", "spare"]
    await eddie.http.aclose()


async def test_an_uploader_keeps_their_document_a_viewer_only_reads(users: Clients) -> None:
    room = await create_room(users.alice)
    eddie = await shared_with(users, room["id"], "eddie", "editor")
    vera = await shared_with(users, room["id"], "vera", "viewer")
    files = {"file": ("notes.txt", b"Eddie's notes.")}
    uploaded = await eddie.http.post(f"/v1/rooms/{room['id']}/documents", files=files)
    assert uploaded.status_code == 202, uploaded.text
    document = f"/v1/documents/{uploaded.json()['id']}"
    assert (await users.alice.get(document)).status_code == 200  # the room's, so the owner's
    assert (await vera.http.get(document)).status_code == 200
    refused = await vera.http.delete(document)
    assert refused.status_code == 403
    assert "viewer" in refused.json()["detail"]
    assert (await users.bob.get(document)).status_code == 404
    await users.alice.delete(f"/v1/rooms/{room['id']}/members/{vera.id}")
    assert (await vera.http.get(document)).status_code == 404  # not hers, no longer shared
    await users.alice.delete(f"/v1/rooms/{room['id']}/members/{eddie.id}")
    assert (await eddie.http.get(document)).status_code == 200  # still the uploader's
    for member in (vera, eddie):
        await member.http.aclose()
