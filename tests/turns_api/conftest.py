"""A real uvicorn server (the production ``TurnAwareServer``) for the durable-turn tests.

httpx's ASGITransport hands a response over only once it is complete, so a client that
disconnects mid-stream, or two listeners on one running turn, need a real server: the
app runs under ``uvicorn.Server`` on 127.0.0.1 (a free port) in this event loop, with
its lifespan, on the parametrised database of ``settings``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.server.serving import TurnAwareServer
from pantheon.settings import Settings
from tests.factories import create_room, create_session


@dataclass
class LiveServer:
    app: FastAPI
    url: str
    http: httpx.AsyncClient
    server: uvicorn.Server

    async def session(self, keys: list[str], **room: Any) -> str:
        """A new room with agents ``keys`` and a session in it; the session id."""
        created = await create_room(self.http, keys, **room)
        session: str = (await create_session(self.http, created["id"]))["id"]
        return session


Serve = Callable[..., contextlib.AbstractAsyncContextManager[LiveServer]]


@pytest.fixture
def serve(settings: Settings, scripted: ScriptedProvider) -> Serve:
    """``async with serve(**overrides) as live``: the app on a real server; ``overrides``
    replace fields of ``settings`` (e.g. ``sse=SSESettings(keepalive_s=0.05)``)."""

    @contextlib.asynccontextmanager
    async def running(**overrides: Any) -> AsyncIterator[LiveServer]:
        chosen = settings.model_copy(update=overrides)
        await upgrade(chosen.resolved_database_url)
        app = create_app(chosen, scripted=scripted)
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, lifespan="on", log_config=None,
            access_log=False, timeout_graceful_shutdown=5,
        )  # fmt: skip
        server = TurnAwareServer(config, app, chosen.turns.shutdown_grace_s)
        task = asyncio.create_task(server.serve())
        try:
            while not server.started:
                if task.done():
                    task.result()  # startup failed: raise its error
                    raise AssertionError("uvicorn stopped during startup")
                await asyncio.sleep(0.01)
            port = server.servers[0].sockets[0].getsockname()[1]
            url = f"http://127.0.0.1:{port}"
            async with httpx.AsyncClient(base_url=url, timeout=10) as http:
                yield LiveServer(app, url, http, server)
        finally:
            server.should_exit = True
            await task

    return running


@pytest.fixture
async def live(serve: Serve) -> AsyncIterator[LiveServer]:
    async with serve() as server:
        yield server
