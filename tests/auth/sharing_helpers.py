"""Sharing for tests: more people on the two-user server, found and shared with through the
public API (``GET /v1/people``, ``PUT /v1/rooms/{id}/members/{user_id}``)."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from pantheon.db.uow import unit_of_work
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth.conftest import Clients, client_for


@dataclass
class Person:
    login: str
    id: str
    http: httpx.AsyncClient
    key: str  # the person's API key, for the doors' own clients (MCP, A2A)


async def person_id(http: httpx.AsyncClient, login: str) -> str:
    """The id of the active account ``login``, as the Share dialog finds it."""
    found = await http.get("/v1/people", params={"q": login})
    assert found.status_code == 200, found.text
    ids = [p["id"] for p in found.json()["items"] if p["login"] == login]
    assert len(ids) == 1, found.text
    return str(ids[0])


async def new_person(users: Clients, login: str, display_name: str = "") -> Person:
    """A new active user with a key (made through the service layer, as an admin's invite
    would); the caller closes ``.http``."""
    async with unit_of_work(users.app.state.services.db, write=True) as session:
        service = UserService(UserRepository(session))
        await service.create_user(login, display_name=display_name)
        key, _row = await service.create_key(login)
    http = client_for(users.app, key)
    return Person(login, await person_id(users.alice, login), http, key)


async def share(owner: httpx.AsyncClient, room_id: str, user_id: str, role: str) -> httpx.Response:
    return await owner.put(f"/v1/rooms/{room_id}/members/{user_id}", json={"role": role})


async def shared_with(users: Clients, room_id: str, login: str, role: str) -> Person:
    """A new person alice shares ``room_id`` with as ``role``."""
    member = await new_person(users, login)
    response = await share(users.alice, room_id, member.id, role)
    assert response.status_code == 200, response.text
    return member
