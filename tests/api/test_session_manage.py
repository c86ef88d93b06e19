"""Sessions as a chat user keeps them: rename, delete, automatic titles, activity order, search."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.factories import create_agent, create_room


async def _session(client: httpx.AsyncClient, room_id: str, title: str = "") -> dict[str, Any]:
    response = await client.post(f"/v1/rooms/{room_id}/sessions", json={"title": title})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _turn(client: httpx.AsyncClient, session_id: str, message: str) -> None:
    response = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": message})
    assert response.status_code == 201, response.text


async def _ids(client: httpx.AsyncClient, path: str, **params: str) -> list[str]:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return [s["id"] for s in response.json()["items"]]


async def test_untitled_session_takes_its_first_message_as_title(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    session = await _session(client, room["id"])
    assert session["title"] == ""
    assert session["title_is_auto"] is False
    assert session["turn_count"] == 0
    assert session["last_activity_at"] == session["created_at"]
    await _turn(client, session["id"], "  \n  Plan   the launch\nsecond line")
    await _turn(client, session["id"], "A later message")
    read = (await client.get(f"/v1/sessions/{session['id']}")).json()
    assert read["title"] == "Plan the launch"
    assert read["title_is_auto"] is True
    assert read["turn_count"] == 2
    assert read["last_activity_at"] > read["created_at"]

    long_id = (await _session(client, room["id"]))["id"]
    await _turn(client, long_id, "word " * 40)
    long_title = (await client.get(f"/v1/sessions/{long_id}")).json()["title"]
    assert len(long_title) == 60
    assert long_title.endswith("…")


async def test_rename_and_back_to_the_automatic_title(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    session = await _session(client, room["id"])
    await _turn(client, session["id"], "first words")
    renamed = await client.patch(f"/v1/sessions/{session['id']}", json={"title": "  Mine  "})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["title"] == "Mine"
    assert renamed.json()["title_is_auto"] is False
    assert renamed.json()["turn_count"] == 1
    assert (await client.get(f"/v1/sessions/{session['id']}")).json()["title"] == "Mine"
    cleared = await client.patch(f"/v1/sessions/{session['id']}", json={"title": ""})
    assert cleared.json()["title"] == "first words"
    assert cleared.json()["title_is_auto"] is True


async def test_patch_errors_name_the_problem(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    session = await _session(client, room["id"])
    url = f"/v1/sessions/{session['id']}"
    too_long = await client.patch(url, json={"title": "x" * 201})
    assert too_long.status_code == 422
    assert "title" in too_long.text
    missing = await client.patch(url, json={})
    assert missing.status_code == 422
    assert "title" in missing.text
    unknown = await client.patch(url, json={"title": "ok", "room_id": str(uuid.uuid4())})
    assert unknown.status_code == 422
    assert "room_id" in unknown.text
    null = await client.patch(url, json={"title": None})
    assert null.status_code == 422
    gone = await client.patch(f"/v1/sessions/{uuid.uuid4()}", json={"title": "x"})
    assert gone.status_code == 404
    assert "session" in gone.json()["detail"]
    assert (await client.patch("/v1/sessions/not-an-id", json={"title": "x"})).status_code == 404


async def test_delete_hides_the_session_and_its_turns(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    keep = await _session(client, room["id"], "keep")
    drop = await _session(client, room["id"], "drop")
    await _turn(client, drop["id"], "hello")
    turns = (await client.get(f"/v1/sessions/{drop['id']}/turns")).json()["items"]
    deleted = await client.delete(f"/v1/sessions/{drop['id']}")
    assert deleted.status_code == 204
    for path in (
        f"/v1/sessions/{drop['id']}",
        f"/v1/sessions/{drop['id']}/messages",
        f"/v1/sessions/{drop['id']}/turns",
        f"/v1/turns/{turns[0]['id']}",
    ):
        assert (await client.get(path)).status_code == 404, path
    posted = await client.post(f"/v1/sessions/{drop['id']}/turns", json={"message": "again"})
    assert posted.status_code == 404
    assert (await client.delete(f"/v1/sessions/{drop['id']}")).status_code == 404
    assert (await client.delete(f"/v1/sessions/{uuid.uuid4()}")).status_code == 404
    assert await _ids(client, f"/v1/rooms/{room['id']}/sessions") == [keep["id"]]


async def test_lists_are_ordered_by_last_activity(client: httpx.AsyncClient) -> None:
    room = await create_room(client, ["a"])
    old = await _session(client, room["id"], "old")
    new = await _session(client, room["id"], "new")
    assert await _ids(client, f"/v1/rooms/{room['id']}/sessions") == [new["id"], old["id"]]
    await _turn(client, old["id"], "wake up")
    assert await _ids(client, f"/v1/rooms/{room['id']}/sessions") == [old["id"], new["id"]]

    agent = await create_agent(client, "solo")
    first = (await client.post(f"/v1/agents/{agent['id']}/sessions", json={})).json()
    second = (await client.post(f"/v1/agents/{agent['id']}/sessions", json={})).json()
    await _turn(client, first["id"], "hi")
    assert await _ids(client, f"/v1/agents/{agent['id']}/sessions") == [first["id"], second["id"]]


async def test_search_by_title_and_content_takes_text_literally(
    client: httpx.AsyncClient,
) -> None:
    room = await create_room(client, ["a"])
    path = f"/v1/rooms/{room['id']}/sessions"
    percent = await _session(client, room["id"], "Growth 100% plan")
    underscore = await _session(client, room["id"], "snake_case names")
    quoted = await _session(client, room["id"])
    await _turn(client, quoted["id"], "He said \"it's fine\" about O'Brien")
    accents = await _session(client, room["id"])
    await _turn(client, accents["id"], "Un café noir à Zürich, 東京")
    plain = await _session(client, room["id"], "Plain title")

    assert await _ids(client, path, q="100%") == [percent["id"]]
    assert await _ids(client, path, q="%") == [percent["id"]]
    assert await _ids(client, path, q="_") == [underscore["id"]]
    assert await _ids(client, path, q="e_c") == [underscore["id"]]
    assert await _ids(client, path, q="O'Brien") == [quoted["id"]]
    assert await _ids(client, path, q='"it') == [quoted["id"]]
    assert await _ids(client, path, q="café") == [accents["id"]]
    assert await _ids(client, path, q="東京") == [accents["id"]]
    assert await _ids(client, path, q="PLAIN") == [plain["id"]]
    assert await _ids(client, path, q="\\") == []
    assert await _ids(client, path, q="nowhere") == []
    page = (await client.get(path, params={"q": "a", "limit": 1})).json()
    assert page["total"] >= 3
    assert len(page["items"]) == 1


async def test_search_matches_messages_of_standalone_sessions(client: httpx.AsyncClient) -> None:
    agent = await create_agent(client, "echoer")
    session = (await client.post(f"/v1/agents/{agent['id']}/sessions", json={})).json()
    await _turn(client, session["id"], "zebra crossing")  # the message, stored with the turn
    other = (await client.post(f"/v1/agents/{agent['id']}/sessions", json={})).json()
    path = f"/v1/agents/{agent['id']}/sessions"
    assert await _ids(client, path, q="ZEBRA") == [session["id"]]
    assert other["id"] not in await _ids(client, path, q="zebra")


async def test_search_errors(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    empty = await client.get(f"/v1/rooms/{room['id']}/sessions", params={"q": ""})
    assert empty.status_code == 422
    assert "q" in empty.text
    huge = await client.get(f"/v1/rooms/{room['id']}/sessions", params={"q": "x" * 201})
    assert huge.status_code == 422
    missing = await client.get(f"/v1/rooms/{uuid.uuid4()}/sessions", params={"q": "x"})
    assert missing.status_code == 404
    no_agent = await client.get(f"/v1/agents/{uuid.uuid4()}/sessions", params={"q": "x"})
    assert no_agent.status_code == 404
