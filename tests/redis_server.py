"""Redis for tests: a private ``redis-server`` per test, on a free port in a temp dir.

Outside CI the ``redis`` tests are skipped, with the reason shown, when the binary is
absent; with ``CI=true`` they are mandatory (.ci/run installs Debian's redis-server).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.exceptions import RedisError


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _binary() -> str:
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )
    if found is None:
        reason = "redis-server not found (Debian: apt-get install redis-server)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (mandatory with CI=true)")
        pytest.skip(reason)
    return found


class RedisServer:
    """A running redis-server; ``stop`` makes it go away (the failure tests)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            _binary(), "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.directory), "--save", "", "--appendonly", "no",
            stdout=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        client = Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=1)
        try:
            for _ in range(200):
                with contextlib.suppress(RedisError, OSError):
                    if await client.ping():
                        return
                await asyncio.sleep(0.05)
        finally:
            await client.aclose()
        raise AssertionError(f"redis-server did not answer on port {self.port}")

    async def stop(self) -> None:
        if self._process is not None and self._process.returncode is None:
            self._process.kill()
            await self._process.wait()

    async def restart(self) -> None:
        """Kill it and start an empty one on the same port: clients' connections go stale."""
        await self.stop()
        await self.start()


@contextlib.asynccontextmanager
async def redis_server(directory: Path) -> AsyncIterator[RedisServer]:
    """A fresh redis-server for the duration of the block (``directory`` must exist)."""
    server = RedisServer(directory)
    try:
        await server.start()
        yield server
    finally:
        await server.stop()
