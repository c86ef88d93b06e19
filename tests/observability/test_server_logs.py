"""A real ``pantheon serve`` in ``keys`` mode with ``PANTHEON_LOG_FORMAT=json``: every line
is JSON, the turn's lines name it, and no line holds the API key or the upstream key."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import free_port

CLI = [sys.executable, "-m", "pantheon"]


def _env(directory: Path, upstream: MockOpenAI, upstream_key: str) -> dict[str, str]:
    config = directory / "pantheon.toml"
    config.write_text(
        f'[models.drip]\nbase_url = "{upstream.base_url}"\nmodel = "m"\n'
        'api_key_env = "DRIP_UPSTREAM_KEY"\n'
    )
    return {
        **os.environ, "PANTHEON_DATA_DIR": str(directory), "PANTHEON_CONFIG_FILE": str(config),
        "PANTHEON_DEFAULT_MODEL": "drip", "PANTHEON_AUTH_MODE": "keys",
        "PANTHEON_LOG_FORMAT": "json", "PANTHEON_LOG_LEVEL": "DEBUG",
        "PANTHEON_KNOWLEDGE__EMBEDDER": "hashing", "DRIP_UPSTREAM_KEY": upstream_key,
    }  # fmt: skip


def _admin_key(env: dict[str, str]) -> str:
    for args in (["migrate"], ["users", "create", "root", "--admin"]):
        subprocess.run([*CLI, *args], env=env, check=True, capture_output=True, timeout=120)
    made = subprocess.run(
        [*CLI, "keys", "create", "root"], env=env, check=True, capture_output=True, timeout=120
    )
    return made.stdout.decode().splitlines()[0].strip()


async def _serve(env: dict[str, str], log: Path) -> tuple[asyncio.subprocess.Process, str]:
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


async def _one_turn(url: str, key: str) -> tuple[str, str]:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as http:
        room = await create_room(http, ["alpha"])
        session = str((await create_session(http, room["id"]))["id"])
        turn = await http.post(f"/v1/sessions/{session}/turns", json={"message": f"key {key}"})
        assert turn.status_code == 201, turn.text
        assert (await http.get("/metrics")).status_code == 200
    wrong = {"Authorization": f"Bearer {key[:-4]}XXXX"}
    async with httpx.AsyncClient(base_url=url, headers=wrong, timeout=10) as http:
        assert (await http.get("/v1/rooms")).status_code == 401
    return turn.json()["id"], session


async def test_json_logs_name_the_turn_and_never_hold_a_key(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    upstream_key = f"sk-drip-{secrets.token_hex(16)}"
    env = _env(tmp_path, upstream, upstream_key)
    key = await asyncio.to_thread(_admin_key, env)
    log = tmp_path / "server.log"
    process, url = await _serve(env, log)
    try:
        turn_id, session_id = await _one_turn(url, key)
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 60)
    assert upstream.received[0].headers["Authorization"] == f"Bearer {upstream_key}"
    text = log.read_text()
    secret_part = key.split("_", 2)[2]
    for secret in (key, secret_part, upstream_key):
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert lines
    assert all({"ts", "level", "logger", "message"} <= set(line) for line in lines)
    ours = [line for line in lines if line["turn_id"] == turn_id]
    assert ours
    assert all(line["session_id"] == session_id for line in ours)
    assert all("trace_id" in line for line in lines)
