"""A session's history a page at a time (GET /v1/sessions/{id}/history): newest page first,
each turn with its figures and the events it streamed, a fork's inherited turns included."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.factories import create_room, create_session
from tests.sse import events_of


async def _session(
    client: httpx.AsyncClient, count: int, agent: str = "a"
) -> tuple[str, list[str]]:
    room = await create_room(client, [agent])
    session = await create_session(client, room["id"])
    turns = []
    for n in range(count):
        url = f"/v1/sessions/{session['id']}/turns"
        response = await client.post(url, json={"message": f"m{n}"})
        assert response.status_code == 201, response.text
        turns.append(response.json()["id"])
    return str(session["id"]), turns


async def _page(client: httpx.AsyncClient, session_id: str, **params: Any) -> dict[str, Any]:
    response = await client.get(f"/v1/sessions/{session_id}/history", params=params)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


async def test_pages_run_newest_first_and_carry_events_and_figures(
    client: httpx.AsyncClient,
) -> None:
    session_id, turns = await _session(client, 5)
    first = await _page(client, session_id, limit=2)
    assert [t["id"] for t in first["items"]] == turns[3:5]
    assert (first["has_more"], first["before"]) == (True, turns[3])
    second = await _page(client, session_id, limit=2, before=first["before"])
    assert [t["id"] for t in second["items"]] == turns[1:3]
    last = await _page(client, session_id, limit=2, before=second["before"])
    assert [t["id"] for t in last["items"]] == turns[0:1]
    assert (last["has_more"], last["before"]) == (False, None)
    # Each item is the turn's detail plus exactly the events a replay streams.
    item = first["items"][-1]
    detail = (await client.get(f"/v1/turns/{item['id']}")).json()
    assert {k: v for k, v in item.items() if k != "events"} == detail
    replay = await client.get(f"/v1/turns/{item['id']}/events")
    assert item["events"] == [data for _, data in events_of(replay)]
    assert item["events"][0]["type"] == "turn_started"
    everything = await _page(client, session_id)
    assert [t["id"] for t in everything["items"]] == turns
    assert everything["has_more"] is False


async def test_a_forks_history_holds_the_inherited_turns(client: httpx.AsyncClient) -> None:
    session_id, turns = await _session(client, 3)
    fork = await client.post(f"/v1/sessions/{session_id}/fork", json={"turn_id": turns[1]})
    fork_id = fork.json()["id"]
    own = await client.post(f"/v1/sessions/{fork_id}/turns", json={"message": "mine"})
    page = await _page(client, fork_id)
    assert [t["id"] for t in page["items"]] == [*turns[:2], own.json()["id"]]
    assert [t["session_id"] for t in page["items"]] == [session_id, session_id, fork_id]
    older = await _page(client, fork_id, before=own.json()["id"], limit=1)
    assert [t["id"] for t in older["items"]] == [turns[1]]


async def test_history_errors(client: httpx.AsyncClient) -> None:
    session_id, turns = await _session(client, 1)
    empty = await _page(client, (await _session(client, 0, "b"))[0])
    assert empty == {"items": [], "has_more": False, "before": None}
    url = f"/v1/sessions/{session_id}/history"
    assert (await client.get(f"/v1/sessions/{uuid.uuid4()}/history")).status_code == 404
    for params in ({"limit": 0}, {"limit": 51}, {"before": "x"}):
        assert (await client.get(url, params=params)).status_code == 422
    stranger = await client.get(url, params={"before": str(uuid.uuid4())})
    assert stranger.status_code == 422
    assert "not in this session's history" in stranger.json()["detail"]
    assert (await client.get(url, params={"before": turns[0]})).json()["items"] == []


async def test_history_through_a_turn_is_what_a_fork_there_would_show(
    client: httpx.AsyncClient,
) -> None:
    session_id, turns = await _session(client, 4)
    through = await _page(client, session_id, through=turns[2], limit=2)
    assert [t["id"] for t in through["items"]] == turns[1:3]
    assert (through["has_more"], through["before"]) == (True, turns[1])
    older = await _page(client, session_id, before=through["before"])
    assert [t["id"] for t in older["items"]] == turns[:1]
    url = f"/v1/sessions/{session_id}/history"
    both = await client.get(url, params={"before": turns[3], "through": turns[2]})
    assert both.status_code == 422
    assert "not both" in both.json()["detail"]
    stranger = await client.get(url, params={"through": str(uuid.uuid4())})
    assert stranger.status_code == 422
    assert "through: turn" in stranger.json()["detail"]
