"""``pantheon serve --workers N``: refused without PostgreSQL and Redis (saying which is
missing), and with both, N workers serve one port and share its turns; a killed worker
is replaced; SIGTERM lets the running turn finish."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from pantheon.server.cli import main
from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI, Reply
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica
from tests.sse import open_stream, types
from tests.waiting import until

PG_URL = "postgresql+asyncpg://u:p@127.0.0.1:1/x"


@pytest.mark.parametrize(
    ("database_url", "redis_url", "names"),
    [
        ("", "redis://127.0.0.1:1/0", "PANTHEON_DATABASE_URL"),
        (PG_URL, "", "PANTHEON_REDIS_URL"),
    ],
)
def test_workers_are_refused_without_postgresql_and_redis(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    database_url: str,
    redis_url: str,
    names: str,
) -> None:
    monkeypatch.setenv("PANTHEON_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PANTHEON_DATABASE_URL", database_url)
    monkeypatch.setenv("PANTHEON_REDIS_URL", redis_url)
    assert main(["serve", "--workers", "2"]) == 2
    message = capsys.readouterr().err
    assert "refusing --workers 2" in message
    assert names in message


def test_zero_workers_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("PANTHEON_DATA_DIR", str(tmp_path))
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


def _workers_of(pid: int) -> list[int]:
    """The worker processes (spawned children) of ``pid``, from /proc; a child that exits
    between the two reads (the killed worker being reaped) is not one."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in children if b"spawn_main" in _cmdline(int(child))]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def _replaced(pid: int, dead: int) -> bool:
    workers = _workers_of(pid)
    return len(workers) == 2 and dead not in workers


@pytest.mark.redis
@pytest.mark.postgres
async def test_two_workers_serve_one_port_replace_the_dead_and_drain_on_sigterm(
    tmp_path: Path, upstream: MockOpenAI, redis: RedisServer, database_url: str
) -> None:
    words = [f"w{i} " for i in range(40)]
    upstream.queue(Reply(chunks=words, chunk_delay_s=0.05))
    env = replica_env(tmp_path / "w", database_url, redis.url, upstream)
    server = await start_replica(env, ["--workers", "2"])
    try:
        killed, _other = _workers_of(server.process.pid)
        os.kill(killed, signal.SIGKILL)  # a worker that dies is replaced
        await until(lambda: _replaced(server.process.pid, killed), attempts=3000)
        async with server.client() as http:
            room = await create_room(http, ["alpha"])
            session = (await create_session(http, room["id"]))["id"]
            turns = f"/v1/sessions/{session}/turns"
            async with open_stream(http, turns, method="POST", json={"message": "go"}) as turn:
                first = await turn.until("delta")
                turn_id = first[0][1]["turn_id"]
                # New connections land on either worker; each one sees the running turn.
                for _ in range(6):
                    async with server.client() as other:
                        refused = await other.post(turns, json={"message": "again"})
                    assert refused.status_code == 409, refused.text
                    assert refused.json()["running_turn_id"] == turn_id
                server.process.send_signal(signal.SIGTERM)  # the grace lets the turn end
                await asyncio.wait_for(turn.rest(), timeout=60)
        assert types(turn.seen)[-1] == "turn_completed"
        assert turn.seen[-1][1]["status"] == "completed"
        assert await asyncio.wait_for(server.process.wait(), 60) == 0
    finally:
        await server.stop()
