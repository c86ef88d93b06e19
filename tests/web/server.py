"""A real uvicorn server for browser tests, on 127.0.0.1 and a free port, in a thread.

The thread owns its event loop (migrations, lifespan, turns); tests talk to it over HTTP
and steer the scripted provider, whose rules are plain data shared with the thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import httpx
import uvicorn
from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import (
    AuthSettings,
    KnowledgeSettings,
    LLMSettings,
    OrchestratorSettings,
    Settings,
    TurnSettings,
)

T = TypeVar("T")
START_TIMEOUT_S = 60.0  # a deadline, not a wait: a loaded 2-core CI machine starts slowly
# Small, so a browser test can show the 413 with a file of a few hundred KB.
UPLOAD_MAX_BYTES = 256 * 1024


@dataclass
class LiveServer:
    url: str
    scripted: ScriptedProvider
    thread: _ServerThread
    # Sent by ``api`` (keys mode: an admin's ``Authorization``, set by the test).
    headers: dict[str, str] = field(default_factory=dict)

    def api(self, method: str, path: str, json: Any = None) -> Any:
        """Call the API directly (test setup); raises on an error status."""
        with httpx.Client(base_url=self.url, timeout=10.0, headers=self.headers) as client:
            response = client.request(method, path, json=json)
        response.raise_for_status()
        return None if response.status_code == 204 else response.json()

    def agent(self, key: str, name: str | None = None) -> dict[str, Any]:
        data = {"key": key, "name": name or key.title(), "role_prompt": f"You are {key}."}
        agent: dict[str, Any] = self.api("POST", "/v1/agents", data)
        return agent

    def room_with(self, name: str, keys: list[str], mode: str = "orchestrator") -> dict[str, Any]:
        """A room with new agents ``keys`` in that order, and one session in it."""
        room = self.api("POST", "/v1/rooms", {"name": name, "mode": mode})
        for key in keys:
            agent = self.agent(key)
            self.api("POST", f"/v1/rooms/{room['id']}/agents", {"agent_id": agent["id"]})
        session = self.api("POST", f"/v1/rooms/{room['id']}/sessions", {"title": name})
        return {"room": room, "session": session}

    def call(self, work: Callable[[FastAPI], Awaitable[T]]) -> T:
        """Run ``work(app)`` on the server's own loop (the service layer, as the CLI would)."""
        loop = self.thread.loop
        assert loop is not None, "the server is not running"
        return asyncio.run_coroutine_threadsafe(_awaited(work(self.thread.app)), loop).result(10)


async def _awaited(work: Awaitable[T]) -> T:
    return await work


class _ServerThread(threading.Thread):
    def __init__(
        self,
        settings: Settings,
        scripted: ScriptedProvider,
        sock: socket.socket,
        graceful_s: int | None,
    ):
        super().__init__(name="pantheon-web-test-server", daemon=True)
        self.app = create_app(settings, scripted=scripted)
        self.loop: asyncio.AbstractEventLoop | None = None
        config = uvicorn.Config(
            self.app,
            log_level="critical" if graceful_s is not None else "warning",
            ws="none",
            lifespan="on",
            timeout_graceful_shutdown=graceful_s,
        )
        self.server = uvicorn.Server(config)
        self.settings = settings
        self.sock = sock
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by the fixture, not lost in the thread
            self.failure = exc

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        await upgrade(self.settings.resolved_database_url)
        await self.server.serve(sockets=[self.sock])


PRICED_MODELS_TOML = """
[models.metered]
provider = "scripted"
input_price_per_mtok = 1000.0
output_price_per_mtok = 0.0
context_window = 4096
"""


@contextlib.contextmanager
def running_server(
    data_dir: Path,
    *,
    port: int = 0,
    database: Path | None = None,
    graceful_s: int | None = None,
    llm: LLMSettings | None = None,
    auth_mode: Literal["local", "keys"] = "local",
    auth: AuthSettings | None = None,
    config: str = "",
) -> Iterator[LiveServer]:
    """A server on ``port`` (0: a free one) over ``database`` (default: data_dir/web.db).

    ``graceful_s`` bounds how long stopping waits for open requests (streams included):
    a small value cuts the connections like a crash would. ``llm``: e.g. quick retries.
    ``auth_mode="keys"``: people sign in (tests/web/people.py makes them), by ``auth``;
    ``config``: more tables for the config file (``[oidc.NAME]`` providers)."""
    models_file = data_dir / "models.toml"  # a priced fake model, for spend limits
    models_file.write_text(PRICED_MODELS_TOML + config)
    settings = Settings(
        data_dir=data_dir,
        models_file=models_file,
        database_url=f"sqlite+aiosqlite:///{database or data_dir / 'web.db'}",
        default_model="scripted",
        orchestrator=OrchestratorSettings(max_depth=2),
        turns=TurnSettings(shutdown_grace_s=1.0),
        llm=llm or LLMSettings(),
        knowledge=KnowledgeSettings(embedder="hashing", max_bytes=UPLOAD_MAX_BYTES),
        auth_mode=auth_mode,
        auth=auth or AuthSettings(),
    )
    scripted = ScriptedProvider()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    thread = _ServerThread(settings, scripted, sock, graceful_s)
    thread.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not thread.server.started:
            if thread.failure is not None or not thread.is_alive():
                raise RuntimeError(f"test server did not start: {thread.failure!r}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"test server not up after {START_TIMEOUT_S} s")
            time.sleep(0.05)
        yield LiveServer(url=f"http://127.0.0.1:{port}", scripted=scripted, thread=thread)
    finally:
        thread.server.should_exit = True
        thread.join(timeout=15)
        sock.close()
    if thread.failure is not None:
        raise RuntimeError("test server failed") from thread.failure
