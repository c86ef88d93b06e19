"""Two users on one server in ``keys`` mode: users and keys made through the service layer.

``alice`` and ``bob`` are plain users, ``root`` is an admin; each gets an HTTP client that
sends its key. ``anon`` sends none. Runs on SQLite and PostgreSQL like ``client``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from pantheon.users.repository import UserRepository
from pantheon.users.service import UserService
from tests.app_factory import running_app

MODELS_TOML = """
[models.cheap]
provider = "scripted"
input_price_per_mtok = 1.0
output_price_per_mtok = 2.0

[models.pricey]
provider = "scripted"
input_price_per_mtok = 10.0
output_price_per_mtok = 30.0
"""


@dataclass
class Clients:
    app: FastAPI
    alice: httpx.AsyncClient
    bob: httpx.AsyncClient
    root: httpx.AsyncClient
    anon: httpx.AsyncClient
    keys: dict[str, str]


async def make_user(
    db: Database, name: str, *, admin: bool = False, models: list[str] | None = None
) -> str:
    """Create a user with one key through the service layer; return the key."""
    async with unit_of_work(db, write=True) as session:
        service = UserService(UserRepository(session))
        await service.create_user(name, is_admin=admin, allowed_models=models)
        key, _row = await service.create_key(name)
    return key


def client_for(app: FastAPI, key: str | None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test", headers=headers
    )


@pytest.fixture
def keys_settings(settings: Settings, tmp_path: Path) -> Settings:
    models_file = tmp_path / "models.toml"
    models_file.write_text(MODELS_TOML)
    return settings.model_copy(update={"auth_mode": "keys", "models_file": models_file})


MakeClients = Callable[..., Awaitable[Clients]]


@pytest.fixture
async def make_clients(
    keys_settings: Settings, scripted: ScriptedProvider
) -> AsyncIterator[MakeClients]:
    """Start an app in keys mode (settings overridable) with alice, bob and root."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(**overrides: Any) -> Clients:
            started = await stack.enter_async_context(
                running_app(keys_settings, scripted, **overrides)
            )
            app = started.app
            db: Database = app.state.services.db
            keys = {
                "alice": await make_user(db, "alice"),
                "bob": await make_user(db, "bob"),
                "root": await make_user(db, "root", admin=True),
            }
            alice, bob, root = (client_for(app, keys[n]) for n in ("alice", "bob", "root"))
            for http in (alice, bob, root):
                stack.push_async_callback(http.aclose)
            return Clients(app, alice, bob, root, started.http, keys=keys)

        yield make


@pytest.fixture
async def users(make_clients: MakeClients) -> Clients:
    """The default two-user server."""
    return await make_clients()
