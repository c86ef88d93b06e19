"""A real ``pantheon serve`` process for tests that signal or kill the server.

Its model ``drip`` is an in-test upstream (tests/llm/mock_openai.py), so the turn's
timing is in the test's hands while the server is a separate process."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

import httpx

from tests.llm.mock_openai import MockOpenAI


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def start_server(
    data_dir: Path, upstream: MockOpenAI, *, migrate: bool = True, **env: str
) -> tuple[asyncio.subprocess.Process, str]:
    """Start ``pantheon serve`` on SQLite in ``data_dir`` (migrated first unless
    ``migrate=False``); (process, base URL) once ``/health`` answers. ``env``: extra
    ``PANTHEON_*`` variables."""
    config = data_dir / "pantheon.toml"
    config.write_text(f'[models.drip]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n')
    environ = {
        **os.environ, "PANTHEON_DATA_DIR": str(data_dir), "PANTHEON_CONFIG_FILE": str(config),
        "PANTHEON_DEFAULT_MODEL": "drip", "PANTHEON_LOG_LEVEL": "WARNING", **env,
    }  # fmt: skip
    cli = [sys.executable, "-m", "pantheon"]
    if migrate:
        migration = await asyncio.create_subprocess_exec(*cli, "migrate", env=environ)
        assert await migration.wait() == 0
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        *cli, "serve", "--host", "127.0.0.1", "--port", str(port), env=environ
    )
    url = f"http://127.0.0.1:{port}"
    if await ready(url, proc):
        return proc, url
    if proc.returncode is None:
        proc.kill()
    await proc.wait()
    raise AssertionError(f"pantheon serve did not start in {READY_GUARD_S} s")


# Only a broken server gets near it: a loaded 2-core machine took over 30 s to import and
# start one (issue 33), so readiness is the condition, this only a hang guard.
READY_GUARD_S = 300


async def ready(url: str, proc: asyncio.subprocess.Process) -> bool:
    """Whether ``/health`` at ``url`` answered 200 before ``proc`` exited or the guard."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + READY_GUARD_S
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        while proc.returncode is None and loop.time() < deadline:
            try:
                if (await http.get("/health")).status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    return False


async def stop(proc: asyncio.subprocess.Process) -> None:
    """Kill the process if it still runs, and reap it."""
    if proc.returncode is None:
        proc.kill()
    await proc.wait()
