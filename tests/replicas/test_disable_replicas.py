"""Disabling a person on one replica locks them out of every replica at once (SPEC "People
and teams", ADR 0040): two real ``pantheon serve`` processes in keys mode on one
PostgreSQL database and one Redis; an admin disables a member on replica A, and the
member's sign-in cookie and API key both get 401 on their very next request to replica B,
with no wait for any cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth.signin_helpers import PASSWORD
from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres]


async def _people(database_url: str) -> dict[str, str]:
    """An admin and a member with a password, each with a key; returns the keys."""
    db = Database.from_url(database_url)
    try:
        async with unit_of_work(db, write=True) as session:
            service = UserService(UserRepository(session))
            await service.create_user("root", is_admin=True)
            await service.create_user("alice")
            await service.set_password("alice", PASSWORD)
            keys = {login: (await service.create_key(login))[0] for login in ("root", "alice")}
    finally:
        await db.dispose()
    return keys


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_a_disable_on_one_replica_holds_on_the_other_at_once(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    keys = await _people(database_url)
    env = {"PANTHEON_AUTH_MODE": "keys"}
    a = await start_replica(replica_env(tmp_path / "a", database_url, redis.url, upstream, **env))
    b = await start_replica(replica_env(tmp_path / "b", database_url, redis.url, upstream, **env))
    try:
        async with a.client() as on_a, b.client() as on_b:
            signin = {"login": "alice", "password": PASSWORD}
            signed = await on_b.post("/auth/login", json=signin)
            assert signed.status_code == 200, signed.text
            cookie = {"Cookie": f"pantheon_session={signed.cookies['pantheon_session']}"}
            on_b.cookies.clear()  # the cookie goes only where the test sends it
            assert (await on_b.get("/v1/me", headers=cookie)).status_code == 200
            assert (await on_b.get("/v1/me", headers=_bearer(keys["alice"]))).status_code == 200
            listed = await on_a.get("/v1/admin/users", headers=_bearer(keys["root"]))
            alice = next(u["id"] for u in listed.json()["items"] if u["login"] == "alice")
            disabled = await on_a.patch(
                f"/v1/admin/users/{alice}",
                json={"status": "disabled"},
                headers=_bearer(keys["root"]),
            )
            assert disabled.status_code == 200, disabled.text
            by_cookie = await on_b.get("/v1/me", headers=cookie)
            by_key = await on_b.get("/v1/rooms", headers=_bearer(keys["alice"]))
            assert (by_cookie.status_code, by_key.status_code) == (401, 401)
            again = await on_b.post("/auth/login", json=signin)
            assert again.status_code == 401
            enabled = await on_b.patch(
                f"/v1/admin/users/{alice}", json={"status": "active"}, headers=_bearer(keys["root"])
            )
            assert enabled.status_code == 200
            assert (await on_a.get("/v1/me", headers=_bearer(keys["alice"]))).status_code == 200
            assert (await on_a.get("/v1/me", headers=cookie)).status_code == 401  # it ended
    finally:
        await a.stop()
        await b.stop()
