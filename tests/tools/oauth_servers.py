"""Real processes for the MCP OAuth tests: ``oidc-provider-mock`` as the authorization
server (tests/auth/oidc_provider.py) and ``mcp_oauth_server.py``, an MCP server on the
SDK's resource-server auth that checks tokens against that provider; and the app on top,
in keys mode with alice and bob, configured with that server as ``auth = "oauth"``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import select

from pantheon.db.mcp_connection_models import McpOAuthConnection
from pantheon.db.uow import unit_of_work
from pantheon.tools.mcp.oauth.sealing import Sealer
from tests.app_factory import AppWith
from tests.auth.conftest import client_for, make_user
from tests.auth.oidc_provider import MockProvider, mock_provider
from tests.tools.conftest import FAST, free_port, write_config

SERVER_SCRIPT = Path(__file__).with_name("mcp_oauth_server.py")
SECRET = "test-secret-key-0123456789abcdef-0123"
# Short OAuth deadline: every request here is local, and the hanging-server tests wait it out.
OAUTH_TOOLS = FAST.model_copy(update={"mcp_oauth_timeout_s": 1.5})


@contextlib.contextmanager
def protected_server(issuer: str) -> Iterator[str]:
    """The protected MCP server for ``issuer`` until the block ends; yields its URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER_SCRIPT), issuer, str(port)])
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the protected MCP server did not start on port {port}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=10)


@contextlib.contextmanager
def provider_and_server() -> Iterator[tuple[MockProvider, str]]:
    with mock_provider() as provider, protected_server(provider.issuer) as url:
        yield provider, url


@dataclass
class World:
    app: FastAPI
    provider: MockProvider
    alice: httpx.AsyncClient
    bob: httpx.AsyncClient
    anon: httpx.AsyncClient


@contextlib.asynccontextmanager
async def oauth_world(
    app_with: AppWith, tmp_path: Path, provider: MockProvider, url: str
) -> AsyncIterator[World]:
    # Scopes named: the mock fails on an authorization request without any.
    toml = f'[mcp_servers.remote]\nurl = "{url}"\nauth = "oauth"\nscopes = ["openid"]\n'
    config = write_config(tmp_path, toml)
    overrides = {"auth_mode": "keys", "config_file": config, "secret_key": SecretStr(SECRET)}
    running = app_with(tools=OAUTH_TOOLS, **overrides)
    async with running as started, contextlib.AsyncExitStack() as st:
        db = started.app.state.services.db
        alice = client_for(started.app, await make_user(db, "alice"))
        bob = client_for(started.app, await make_user(db, "bob"))
        for http in (alice, bob):
            st.push_async_callback(http.aclose)
        yield World(started.app, provider, alice, bob, started.http)


async def connect(world: World, sub: str) -> httpx.Response:
    """Alice's side of a connect: start it, consent as ``sub``, follow the redirect back."""
    started = await world.alice.post("/v1/connections/remote")
    assert started.status_code == 200, started.text
    back = world.provider.authorize(started.json()["url"], sub)
    assert urlsplit(back).path == "/v1/connections/remote/callback"
    return await world.anon.get(back)


async def stored(app: FastAPI) -> list[tuple[McpOAuthConnection, dict[str, Any]]]:
    """Every stored connection with its token set, opened with the test's key."""
    async with unit_of_work(app.state.services.db, write=False) as session:
        rows = list(await session.scalars(select(McpOAuthConnection)))
    found = []
    for row in rows:
        opened = Sealer(SECRET).open(row.sealed_tokens)
        assert opened is not None
        found.append((row, json.loads(opened)))
    return found


@contextlib.asynccontextmanager
async def silent_server(*, trickle: bool = False) -> AsyncIterator[str]:
    """A local HTTP endpoint that accepts connections and never answers (or, ``trickle``,
    starts an answer and sends one byte of it every 0.3 s); yields its URL."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        await reader.read(65536)
        if trickle:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not writer.is_closing():
                writer.write(b"{")
                await writer.drain()
                await asyncio.sleep(0.3)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
