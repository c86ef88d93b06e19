"""People for browser tests in keys mode: accounts made through the service layer on the
live server's own loop (as ``pantheon users create`` would), with a password to sign in
with, and an admin key the test's own setup calls use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from pantheon.db.uow import unit_of_work
from pantheon.settings import AuthSettings
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth.signin_helpers import PASSWORD, database
from tests.web.server import LiveServer, running_server

__all__ = ["PASSWORD", "keys_server", "make_person"]


def make_person(
    server: LiveServer, login: str, *, display_name: str = "", admin: bool = False
) -> str:
    """An active user ``login`` with the password ``PASSWORD``; returns a new key of theirs."""

    async def work(app: FastAPI) -> str:
        async with unit_of_work(database(app), write=True) as session:
            service = UserService(UserRepository(session))
            await service.create_user(login, is_admin=admin, display_name=display_name)
            await service.set_password(login, PASSWORD)
            key, _ = await service.create_key(login)
        return key

    return server.call(work)


def keys_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server in keys mode whose ``api`` calls are an admin's ("root"). Every sign-in
    comes from 127.0.0.1: the per-address attempt limit is raised for a module's worth."""
    auth = AuthSettings(login_attempts_per_minute=1000)
    data_dir = tmp_path_factory.mktemp("web-keys")
    with running_server(data_dir, auth_mode="keys", auth=auth) as live:
        key = make_person(live, "root", display_name="Root Admin", admin=True)
        live.headers = {"Authorization": f"Bearer {key}"}
        yield live
