"""``PANTHEON_METRICS__PORT``: the metrics on a loopback port of their own, without auth;
the API's ``/metrics`` then answers 404 even to an admin; a port in use stops the start."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import httpx
import pytest

from pantheon.server.cli import main
from tests.llm.mock_openai import MockOpenAI
from tests.observability.scrape import parse, total
from tests.observability.server import admin_key, keys_env, serve
from tests.redis_server import free_port


async def test_metrics_port_serves_loopback_without_auth_and_the_api_route_is_gone(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    metrics = free_port()
    env = keys_env(tmp_path, upstream, "sk-unused-0000000000", PANTHEON_METRICS__PORT=str(metrics))
    key = await asyncio.to_thread(admin_key, env)
    process, url = await serve(env, tmp_path / "server.log")
    try:
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as http:
            assert (await http.get("/v1/rooms")).status_code == 200
            api = await http.get("/metrics")
        assert api.status_code == 404
        assert f"127.0.0.1:{metrics}" in api.json()["detail"]
        async with httpx.AsyncClient(timeout=10) as http:
            scraped = await http.get(f"http://127.0.0.1:{metrics}/metrics")
        assert scraped.status_code == 200
        samples = parse(scraped.text)
        assert total(samples, "pantheon_http_requests_total", route="/v1/rooms") == 1
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 60)


def test_a_metrics_port_in_use_stops_the_server_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv("PANTHEON_DATA_DIR", str(tmp_path))
        monkeypatch.setenv("PANTHEON_METRICS__PORT", str(port))
        assert main(["serve", "--port", str(free_port())]) == 1
    message = capsys.readouterr().err
    assert f"cannot serve metrics on 127.0.0.1:{port}" in message
    assert "PANTHEON_METRICS__PORT" in message
