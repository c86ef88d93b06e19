"""Object-level authorization for members: a viewer and an editor of alice's room walk
every API route with alice's ids (the non-member walk is ``test_isolation.py``).

Each route is in one class: ``VIEW`` routes work for every member, ``EDIT`` routes for an
editor (403 for a viewer), ``OWN`` routes for nobody but alice (403 for members), and every
other route is about alice's own things (her agent, sessions, turns, evals), which sharing
the room does not share: 404, with none of her other ids in the answer, as for bob. A route
added without a class here is treated as alice's own, so a room route that forgot the
shared-room rule fails. A viewer's walk leaves alice's world exactly as it was.
"""

from __future__ import annotations

import httpx
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import Clients
from tests.auth.sharing_helpers import shared_with
from tests.auth.test_isolation import (
    ADMIN_ONLY,
    OWN,
    PUBLIC,
    alice_world,
    call_as,
    schema_routes,
    snapshot,
)
from tests.factories import create_agent

ROOM = "/v1/rooms/{room_id}"
VIEW = {
    ("GET", ROOM), ("GET", ROOM + "/sessions"), ("POST", ROOM + "/sessions"),
    ("GET", ROOM + "/documents"), ("GET", ROOM + "/knowledge/search"),
    ("GET", ROOM + "/members"), ("GET", ROOM + "/usage"),
    ("GET", "/v1/documents/{document_id}"),
    ("GET", "/openai/v1/models/{model_id}"),
    ("POST", "/openai/v1/chat/completions"), ("POST", "/openai/v1/responses"),
}  # fmt: skip
EDIT = {
    ("PATCH", ROOM), ("POST", ROOM + "/agents"), ("DELETE", ROOM + "/agents/{agent_id}"),
    ("POST", ROOM + "/documents"), ("DELETE", "/v1/documents/{document_id}"),
}  # fmt: skip
OWNER_ONLY = {
    ("DELETE", ROOM), ("PUT", ROOM + "/members/{user_id}"),
    ("DELETE", ROOM + "/members/{user_id}"),  # alice's id: not the member leaving
}  # fmt: skip
# Lists that now show alice's shared room (and nothing else of hers).
LISTINGS = {("GET", "/v1/rooms"), ("GET", "/openai/v1/models")}
# The AG-UI door runs the room; the walk sends no run body (its own test runs one).
UNBODIED = {("POST", "/agui/rooms/{room_id}")}


def _allowed(response: httpx.Response) -> bool:
    return response.status_code < 400


def _order(route: tuple[str, str]) -> tuple[bool, str, str]:
    """Deletions last, so an editor's delete does not hide what later routes read."""
    return (route[0] == "DELETE", route[1], route[0])


def _check(
    role: str, route: tuple[str, str], response: httpx.Response, ids: dict[str, str], sent: str
) -> None:
    method, path = route
    where = (role, method, path, response.text)
    if path.startswith("/v1/admin/") or route in ADMIN_ONLY:
        assert response.status_code == 403, where
    elif route in OWN:
        assert response.status_code == OWN[route], where
    elif route in UNBODIED:  # past the room check, refused for its missing body
        assert response.status_code == 422, where
    elif route in VIEW:
        assert _allowed(response), where
    elif route in EDIT:
        if role == "editor":
            assert _allowed(response), where
        else:
            assert response.status_code == 403, where
            assert "viewer" in response.json()["detail"], where
    elif route in OWNER_ONLY:
        assert response.status_code == 403, where
        assert "only the owner" in response.json()["detail"], where
    elif route in LISTINGS:
        assert response.status_code == 200, where
        assert ids["room_id"] in response.text, where
    elif response.status_code in (200, 201):  # the member's own collections
        assert not any(v in response.text for v in ids.values()), where
    else:
        assert response.status_code == 404, where
        assert not any(v in response.text for v in ids.values() if v not in sent), where


@pytest.mark.parametrize("role", ["viewer", "editor"])
async def test_members_walk_every_route_with_alices_ids(
    users: Clients, scripted: ScriptedProvider, role: str
) -> None:
    ids = await alice_world(users)
    member = await shared_with(users, ids["room_id"], "morgan", role)
    own_agent = (await create_agent(member.http, "morgana"))["id"]
    before = await snapshot(users.alice, ids)
    walked = set()
    try:
        for route in sorted(schema_routes(users) - PUBLIC, key=_order):
            sent, response = await call_as(member.http, *route, ids, own_agent)
            walked.add(route)
            _check(role, route, response, ids, sent)
    finally:
        await member.http.aclose()
    assert walked == schema_routes(users) - PUBLIC
    if role == "viewer":
        assert await snapshot(users.alice, ids) == before
