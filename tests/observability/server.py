"""A real ``pantheon serve`` (one process, SQLite) in ``keys`` mode, for the log and
metrics-port tests: its environment, an admin key made with the CLI, and its output."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import free_port

CLI = [sys.executable, "-m", "pantheon"]


def keys_env(
    directory: Path, upstream: MockOpenAI, upstream_key: str, **extra: str
) -> dict[str, str]:
    """Keys mode, JSON logs at DEBUG, the alias ``drip`` with its key in an env variable."""
    config = directory / "pantheon.toml"
    config.write_text(
        f'[models.drip]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n'
        'api_key_env = "DRIP_UPSTREAM_KEY"\n'
    )
    return {
        **os.environ, "PANTHEON_DATA_DIR": str(directory), "PANTHEON_CONFIG_FILE": str(config),
        "PANTHEON_DEFAULT_MODEL": "drip", "PANTHEON_AUTH_MODE": "keys",
        "PANTHEON_LOG_FORMAT": "json", "PANTHEON_LOG_LEVEL": "DEBUG",
        "PANTHEON_KNOWLEDGE__EMBEDDER": "hashing", "DRIP_UPSTREAM_KEY": upstream_key, **extra,
    }  # fmt: skip


def admin_key(env: dict[str, str]) -> str:
    """Migrate, create an admin and return its new key (blocking: run it in a thread)."""
    for args in (["migrate"], ["users", "create", "root", "--admin"]):
        subprocess.run([*CLI, *args], env=env, check=True, capture_output=True, timeout=120)
    made = subprocess.run(
        [*CLI, "keys", "create", "root"], env=env, check=True, capture_output=True, timeout=120
    )
    return made.stdout.decode().splitlines()[0].strip()


async def serve(env: dict[str, str], log: Path) -> tuple[asyncio.subprocess.Process, str]:
    """``pantheon serve`` with its output in ``log``; returns once ``/health`` answers."""
    port = free_port()
    with log.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            *CLI, "serve", "--port", str(port), env=env, stdout=sink, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=url, timeout=5) as http:
        for _ in range(1800):
            assert process.returncode is None, f"pantheon serve exited; see {log}"
            try:
                if (await http.get("/health")).status_code == 200:
                    return process, url
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    raise AssertionError("pantheon serve did not start")
