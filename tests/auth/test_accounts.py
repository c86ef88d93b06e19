"""Accounts in keys mode: login, email, display name, role and status, made by the CLI,
read by admins; users from before accounts keep working after the migration."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text

from pantheon.db.engine import create_engine
from pantheon.db.migrations import upgrade
from pantheon.settings import Settings
from tests.auth.conftest import Clients, client_for
from tests.auth.test_keys import main_with


async def test_migration_keeps_existing_users_and_their_role(db_url: str) -> None:
    await upgrade(db_url, "0017_response_requests")
    ids = {name: uuid.uuid4() for name in ("old_admin", "old_member")}
    engine = create_engine(db_url)
    try:
        async with engine.begin() as conn:
            for name, ident in ids.items():
                await conn.execute(
                    text(
                        "INSERT INTO users (id, name, is_admin, created_at) "
                        "VALUES (:id, :name, :admin, CURRENT_TIMESTAMP)"
                    ),
                    {"id": ident.hex if "sqlite" in db_url else ident, "name": name,
                     "admin": name == "old_admin"},
                )  # fmt: skip
        await upgrade(db_url)
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT login, role, status, password_hash FROM users ORDER BY login")
            )
            found = [tuple(row) for row in rows]
    finally:
        await engine.dispose()
    assert found == [
        ("old_admin", "admin", "active", None),
        ("old_member", "member", "active", None),
    ]


async def test_cli_admin_has_the_admin_role_and_the_account_fields(
    users: Clients, keys_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["users", "create", "dana", "--admin", "--email", "dana@example.com"]
    assert await main_with(keys_settings, [*argv, "--display-name", "Dana S."]) == 0
    assert await main_with(keys_settings, ["users", "create", "eve"]) == 0
    assert await main_with(keys_settings, ["keys", "create", "dana"]) == 0
    out = capsys.readouterr().out
    assert "created admin 'dana'" in out
    assert "created member 'eve'" in out
    key = next(line for line in out.splitlines() if line.startswith("pk_"))
    async with client_for(users.app, key) as dana:
        listed = await dana.get("/v1/admin/users")  # an admin route: the role is honoured
    assert listed.status_code == 200, listed.text
    by_login = {u["login"]: u for u in listed.json()["items"]}
    assert {k: by_login["dana"][k] for k in ("email", "display_name", "role", "status")} == {
        "email": "dana@example.com",
        "display_name": "Dana S.",
        "role": "admin",
        "status": "active",
    }
    assert by_login["eve"]["role"] == "member"
    assert by_login["eve"]["display_name"] == "eve"
    assert by_login["eve"]["is_admin"] is False
    assert by_login["dana"]["name"] == "dana"
    assert "password" not in str(by_login)
