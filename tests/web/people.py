"""People for browser tests in keys mode: accounts made through the service layer on the
live server's own loop (as ``pantheon users create`` would), with a password to sign in
with, and an admin key the test's own setup calls use."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from pantheon.db.uow import unit_of_work
from pantheon.settings import AuthSettings
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.auth import signin_helpers
from tests.auth.signin_helpers import PASSWORD, database
from tests.web.server import LiveServer, running_server
from tests.web.views import open_sidebar

__all__ = ["PASSWORD", "account", "api_as", "keys_server", "make_person", "set_status", "sign_in"]


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


def sign_in(
    page: Page, login: str, password: str = PASSWORD, *, go: bool = True, wait: bool = True
) -> None:
    """Sign in on the page's sign-in screen (``go``: open the page first; ``wait``: until
    the page has reloaded signed in, its account menu drawn)."""
    if go:
        page.goto("/")
    expect(page.get_by_role("heading", name="Sign in to Pantheon")).to_be_visible()
    expect(page.get_by_label("Login")).to_be_focused()
    page.get_by_label("Login").fill(login)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    if wait:
        expect(page.locator(".account")).to_be_attached()


def account(page: Page, size: str, name: str) -> None:
    """Open the account menu of ``name`` (on a phone, the sidebar first)."""
    open_sidebar(page, size)
    page.get_by_role("button", name=f"Account: {name}").click()


# One OIDC provider, so the sign-in screen shows its button (nothing is fetched from it
# unless a test follows the button; the port is the discard service's, never listening).
OIDC_SECRET_ENV = "PANTHEON_WEB_TEST_OIDC_SECRET"
OIDC_CONFIG = f"""
[oidc.corp]
label = "Corp SSO"
issuer = "http://127.0.0.1:9/realms/corp"
client_id = "pantheon"
client_secret_env = "{OIDC_SECRET_ENV}"
"""


def keys_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server in keys mode whose ``api`` calls are an admin's ("root"), with the OIDC
    provider "Corp SSO". Every sign-in comes from 127.0.0.1: the per-address attempt limit
    is raised for a module's worth."""
    auth = AuthSettings(login_attempts_per_minute=1000)
    data_dir = tmp_path_factory.mktemp("web-keys")
    os.environ.setdefault(OIDC_SECRET_ENV, "not-a-real-secret")
    with running_server(data_dir, auth_mode="keys", auth=auth, config=OIDC_CONFIG) as live:
        key = make_person(live, "root", display_name="Root Admin", admin=True)
        live.headers = {"Authorization": f"Bearer {key}"}
        yield live


def api_as(server: LiveServer, key: str, method: str, path: str, json: Any = None) -> Any:
    """Call the API as the owner of ``key`` (test setup); raises on an error status."""
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=10.0, headers=headers) as client:
        response = client.request(method, path, json=json)
    response.raise_for_status()
    return None if response.status_code == 204 else response.json()


def set_status(server: LiveServer, login: str, status: str) -> None:
    """Put ``login`` in ``status`` directly (a pending person, as a first OIDC sign-in makes)."""
    server.call(lambda app: signin_helpers.set_status(app, login, status))
