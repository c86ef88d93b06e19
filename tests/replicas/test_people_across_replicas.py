"""A team on two replicas (SPEC "People and teams"): two real ``pantheon serve`` processes
in keys mode on one PostgreSQL database and one Redis. Alice signs in on replica A and
works by that cookie on replica B; she shares a room with Vera on B, and Vera uses it on A
through the official OpenAI SDK with her own key; a share link Alice makes on B shows the
conversation to someone signed out on A, and revoking it on A ends it on B at once."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth.signin_helpers import PASSWORD
from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import RedisServer
from tests.replicas.cluster import Replica, replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


async def _people(database_url: str) -> str:
    """Alice (a password) and Vera (a key) as members; returns Vera's key."""
    db = Database.from_url(database_url)
    try:
        async with unit_of_work(db, write=True) as session:
            service = UserService(UserRepository(session))
            await service.create_user("alice")
            await service.set_password("alice", PASSWORD)
            await service.create_user("vera")
            key, _ = await service.create_key("vera")
    finally:
        await db.dispose()
    return key


async def _signed_in(on: Replica, elsewhere: Replica) -> httpx.AsyncClient:
    """Alice signed in on ``on``, as a client of ``elsewhere`` carrying her cookies and the
    CSRF header (the page's way of writing)."""
    async with on.client() as http:
        signed = await http.post("/auth/login", json={"login": "alice", "password": PASSWORD})
        assert signed.status_code == 200, signed.text
    cookies = {name: signed.cookies[name] for name in ("pantheon_session", "pantheon_csrf")}
    client = elsewhere.client(timeout=60)
    client.cookies.update(cookies)
    client.headers["X-CSRF-Token"] = cookies["pantheon_csrf"]
    return client


async def test_a_team_signs_in_shares_and_links_across_two_replicas(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    vera_key = await _people(database_url)
    env = {"PANTHEON_AUTH_MODE": "keys"}
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **env))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **env))
    vera = openai.AsyncOpenAI(base_url=f"{a.url}/openai/v1", api_key=vera_key, max_retries=0)
    try:
        async with await _signed_in(a, b) as alice, a.client() as anyone:
            room = await create_room(alice, ["alpha"], name="Plans")
            vera_id = (await alice.get("/v1/people", params={"q": "vera"})).json()["items"][0]
            shared = await alice.put(
                f"/v1/rooms/{room['id']}/members/{vera_id['id']}", json={"role": "viewer"}
            )
            assert shared.status_code == 200, shared.text

            model = f"room-{room['id']}"
            assert model in [m.id for m in (await vera.models.list()).data]
            answer = await vera.chat.completions.create(
                model=model, messages=[{"role": "user", "content": "@alpha hi"}]
            )
            assert answer.choices[0].message.content

            session = (await create_session(alice, room["id"]))["id"]
            turn = await alice.post(f"/v1/sessions/{session}/turns", json={"message": "lunch?"})
            assert turn.status_code == 201, turn.text
            link = await alice.post(f"/v1/sessions/{session}/share")
            assert link.status_code == 201, link.text
            token = link.json()["url"].removeprefix("/share/")
            seen = await anyone.get(f"/v1/shared/{token}")
            assert seen.status_code == 200, seen.text
            assert "lunch?" in seen.text
            assert session not in seen.text
            assert room["id"] not in seen.text

            on_a = await _signed_in(a, a)
            async with on_a:
                assert (await on_a.delete(f"/v1/sessions/{session}/share")).status_code == 204
            async with b.client() as anyone_on_b:
                assert (await anyone_on_b.get(f"/v1/shared/{token}")).status_code == 404
    finally:
        await vera.close()
        await a.stop()
        await b.stop()
