"""Real ``pantheon serve`` replicas on one PostgreSQL database and one Redis, for tests.

Each replica is its own process with its own data dir; the turns' model is an in-test
upstream (``MockOpenAI``) that every replica reaches over HTTP.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import free_port

CLI = [sys.executable, "-m", "pantheon"]
# Short leases and sweeps so a dead replica is noticed within seconds.
FAST = {
    "PANTHEON_REDIS__LEASE_S": "2",
    "PANTHEON_REDIS__SWEEP_INTERVAL_S": "0.5",
    "PANTHEON_REDIS__BLOCK_S": "1",
}


def replica_env(
    directory: Path, database_url: str, redis_url: str, upstream: MockOpenAI, **extra: str
) -> dict[str, str]:
    """The environment of one replica (its own data dir, the shared stores)."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "pantheon.toml"
    config.write_text(f'[models.drip]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n')
    return {
        **os.environ, "PANTHEON_DATA_DIR": str(directory),
        "PANTHEON_CONFIG_FILE": str(config), "PANTHEON_DEFAULT_MODEL": "drip",
        "PANTHEON_LOG_LEVEL": "WARNING", "PANTHEON_DATABASE_URL": database_url,
        "PANTHEON_REDIS_URL": redis_url, "PANTHEON_KNOWLEDGE__EMBEDDER": "hashing",
        **FAST, **extra,
    }  # fmt: skip


@dataclass
class Replica:
    process: asyncio.subprocess.Process
    url: str

    def client(self, timeout: float = 30) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, timeout=timeout)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last words."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:  # beyond a serve's worst drain: the grace (30 s) and its margin (15 s)
                await asyncio.wait_for(self.process.wait(), 60)
            except TimeoutError:
                print(f"{self.url} did not stop within 60 s of SIGTERM; killed", file=sys.stderr)
                self.process.kill()
        await self.process.wait()


async def start_replica(env: dict[str, str], args: Sequence[str] = ()) -> Replica:
    """``pantheon serve`` on a free port; returns once ``/health`` answers."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        *CLI, "serve", "--host", "127.0.0.1", "--port", str(port), *args, env=env
    )
    replica = Replica(process, f"http://127.0.0.1:{port}")
    async with replica.client(timeout=5) as http:
        for _ in range(1800):  # 90 s: a loaded machine starts Python slowly
            if process.returncode is not None:
                break
            try:
                if (await http.get("/health")).status_code == 200:
                    return replica
            except httpx.TransportError:
                await asyncio.sleep(0.05)
    await replica.stop()
    raise AssertionError(f"pantheon serve did not start (exit {process.returncode})")
