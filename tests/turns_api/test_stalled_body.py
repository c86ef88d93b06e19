"""A client that announces a body and never finishes sending it gets a 408 within the
body deadline, on a real server, instead of holding the request forever."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from pantheon.settings import LimitSettings
from tests.turns_api.conftest import Serve


async def _raw_request(url: str, head: bytes, body: bytes) -> bytes:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        writer.write(head + body)
        await writer.drain()
        return await asyncio.wait_for(reader.read(4096), timeout=10)
    finally:
        writer.close()


async def test_a_stalled_body_is_answered_408_by_its_deadline(serve: Serve) -> None:
    async with serve(limits=LimitSettings(body_timeout_s=0.3)) as live:
        head = (
            b"POST /v1/rooms HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n"
        )
        loop = asyncio.get_running_loop()
        start = loop.time()
        answer = await _raw_request(live.url, head, b'{"name": "sixteen')
        elapsed = loop.time() - start
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"did not arrive within 0.3 s" in answer
        assert elapsed < 5
        rooms = await live.http.get("/v1/rooms")
        assert rooms.json()["total"] == 0  # nothing half-created


async def test_a_slow_but_complete_body_within_the_deadline_is_served(serve: Serve) -> None:
    async with serve(limits=LimitSettings(body_timeout_s=5)) as live:
        body = b'{"name": "patient"}'
        head = (
            b"POST /v1/rooms HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        answer = await _raw_request(live.url, head, body)
        assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
