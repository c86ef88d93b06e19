"""Authentication: bearer keys, 401s with a challenge, revocation, the CLI, loopback guard."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select

from pantheon.db.models import ApiKey
from pantheon.db.uow import unit_of_work
from pantheon.secret_tokens import token_digest
from pantheon.server.cli import main, refuse_unsafe_bind
from pantheon.settings import Settings
from pantheon.users.auth import is_loopback_host
from pantheon.users.keys import prefix_of
from tests.auth.conftest import Clients, client_for


async def _assert_401(response_status: int, headers: dict[str, str]) -> None:
    assert response_status == 401
    assert headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer ",
        "Basic YWxpY2U6c2VjcmV0",
        "Bearer not-a-key",
        "Bearer pk_00000000_wrongwrongwrongwrongwrongwrongwrongwrongwro",
    ],
)
async def test_missing_or_invalid_key_is_401(users: Clients, authorization: str | None) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = await users.anon.get("/v1/rooms", headers=headers)
    await _assert_401(response.status_code, dict(response.headers))
    assert "key" in response.json()["detail"]


async def test_tampered_key_with_a_real_prefix_is_401(users: Clients) -> None:
    key = users.keys["alice"]
    response = await users.anon.get("/v1/rooms", headers={"Authorization": f"Bearer {key}x"})
    assert response.status_code == 401
    assert response.json()["detail"] == "invalid API key"


async def test_public_routes_need_no_key(users: Clients) -> None:
    for path in ("/health", "/ready", "/openapi.json", "/docs"):
        assert (await users.anon.get(path)).status_code == 200, path


async def test_every_schema_route_needs_a_key(users: Clients) -> None:
    public = {
        "/health": 200,
        "/ready": 200,
        "/auth/login": 422,  # no body sent
        "/auth/invite": 422,  # no body sent
        "/auth/providers": 200,
        "/auth/oidc/{name}/login": 404,  # no provider named "{name}"
        "/auth/oidc/{name}/callback": 404,
        "/v1/shared/{token}": 404,  # no such token (tests/sessions)
        "/v1/connections/{server}/callback": 404,  # no oauth server named "{server}"
    }
    for path, operations in users.app.openapi()["paths"].items():
        for method in operations:
            response = await users.anon.request(method.upper(), path)
            expected = public.get(path, 401)
            assert response.status_code == expected, (method, path)


async def test_keys_are_stored_hashed_with_a_visible_prefix(users: Clients) -> None:
    key = users.keys["alice"]
    prefix = prefix_of(key)
    assert prefix is not None
    assert prefix.startswith("pk_")
    assert len(prefix) == 11
    async with unit_of_work(users.app.state.services.db, write=False) as session:
        row = await session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))
    assert row is not None
    assert row.key_hash == token_digest(key) != key
    assert key not in (row.key_hash, row.prefix)


async def test_revoked_key_is_refused_at_once(users: Clients, keys_settings: Settings) -> None:
    assert (await users.alice.get("/v1/rooms")).status_code == 200
    prefix = prefix_of(users.keys["alice"])
    assert prefix is not None
    settings = keys_settings
    assert await main_with(settings, ["keys", "revoke", prefix]) == 0
    response = await users.alice.get("/v1/rooms")
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert (await users.bob.get("/v1/rooms")).status_code == 200


async def main_with(settings: Settings, argv: list[str]) -> int:
    """Run the CLI (in a thread: it runs its own event loop) against ``settings``' database."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PANTHEON_DATABASE_URL", settings.resolved_database_url)
        patch.setenv("PANTHEON_DATA_DIR", str(settings.data_dir))
        return await asyncio.to_thread(main, argv)


async def test_cli_creates_users_and_keys_that_work(
    users: Clients, keys_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await main_with(keys_settings, ["users", "create", "carol", "--models", "cheap"]) == 0
    assert await main_with(keys_settings, ["keys", "create", "carol"]) == 0
    out = capsys.readouterr().out
    key = next(line for line in out.splitlines() if line.startswith("pk_"))
    async with client_for(users.app, key) as carol:
        models = await carol.get("/v1/models")
    assert [m["name"] for m in models.json()["items"]] == ["cheap"]
    assert await main_with(keys_settings, ["users", "set-models", "carol", "all"]) == 0
    assert await main_with(keys_settings, ["users", "create", "carol"]) == 1
    assert await main_with(keys_settings, ["keys", "create", "nobody"]) == 1
    assert await main_with(keys_settings, ["keys", "revoke", "pk_nothere"]) == 1
    assert "already exists" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_local_mode_refuses_non_loopback_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local = Settings(data_dir=tmp_path, auth_mode="local")
    assert refuse_unsafe_bind(local, "127.0.0.1") is None
    assert refuse_unsafe_bind(local.model_copy(update={"auth_mode": "keys"}), "0.0.0.0") is None
    escape = local.model_copy(update={"allow_local_on_any_host": True})
    assert refuse_unsafe_bind(escape, "0.0.0.0") is None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PANTHEON_AUTH_MODE", "local")
        patch.setenv("PANTHEON_DATA_DIR", str(tmp_path))
        assert main(["serve", "--host", "0.0.0.0"]) == 2
        assert main(["run-local", "--host", "10.0.0.1"]) == 2
    assert "loopback" in capsys.readouterr().err
