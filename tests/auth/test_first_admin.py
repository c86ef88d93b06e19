"""The first admin, made on the command line with a password (SPEC: "The first user is the
admin made by pantheon users create --admin"), signs in and invites the next person; a
password is read from stdin, never from the arguments, and a refused one creates nobody."""

from __future__ import annotations

import io

import pytest

from pantheon.settings import Settings
from tests.auth.conftest import Clients
from tests.auth.signin_helpers import PASSWORD, sign_in
from tests.auth.test_keys import main_with


async def _cli(
    settings: Settings, argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch
) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return await main_with(settings, argv)


async def test_the_first_admin_gets_a_password_and_invites(
    users: Clients,
    keys_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["users", "create", "ada", "--admin", "--password-stdin"]
    assert await _cli(keys_settings, argv, f"{PASSWORD}\n", monkeypatch) == 0
    assert "created admin 'ada'" in capsys.readouterr().out
    signed = await sign_in(users.app, "ada")
    async with signed.http:
        made = await signed.http.post(
            "/v1/admin/users", json={"login": "grace"}, headers=signed.csrf_header
        )
    assert made.status_code == 201, made.text
    assert made.json()["invite_url"].startswith("/invite/")


async def test_a_short_password_creates_nobody(
    users: Clients,
    keys_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["users", "create", "ada", "--admin", "--password-stdin"]
    assert await _cli(keys_settings, argv, "short\n", monkeypatch) == 1
    assert "12 to 1024 characters" in capsys.readouterr().err
    listed = (await users.root.get("/v1/admin/users")).json()["items"]
    assert "ada" not in {u["login"] for u in listed}


async def test_set_password_reads_stdin(
    users: Clients, keys_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["users", "set-password", "alice"]
    assert await _cli(keys_settings, argv, f"{PASSWORD}\r\n", monkeypatch) == 0
    signed = await sign_in(users.app, "alice")
    await signed.http.aclose()
    assert (
        await _cli(keys_settings, ["users", "set-password", "nobody"], PASSWORD, monkeypatch) == 1
    )
