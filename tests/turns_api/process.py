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
    async with httpx.AsyncClient(base_url=url) as http:
        for _ in range(600):  # 30 s: a loaded machine imports slowly
            if proc.returncode is not None:
                break
            try:
                if (await http.get("/health")).status_code == 200:
                    return proc, url
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    if proc.returncode is None:
        proc.kill()
    await proc.wait()
    raise AssertionError("pantheon serve did not start")


async def stop(proc: asyncio.subprocess.Process) -> None:
    """Kill the process if it still runs, and reap it."""
    if proc.returncode is None:
        proc.kill()
    await proc.wait()
