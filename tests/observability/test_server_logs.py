"""A real ``pantheon serve`` in ``keys`` mode with ``PANTHEON_LOG_FORMAT=json``: every line
is JSON, the turn's lines name it, and no line holds the API key or the upstream key."""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
from pathlib import Path

import httpx

from tests.factories import create_room, create_session
from tests.llm.mock_openai import MockOpenAI
from tests.observability.server import admin_key, keys_env, serve


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
    env = keys_env(tmp_path, upstream, upstream_key)
    key = await asyncio.to_thread(admin_key, env)
    log = tmp_path / "server.log"
    process, url = await serve(env, log)
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
