"""``pantheon serve`` bounds how long a client may take over its request headers and how
long an idle connection is kept (slowloris): a real server process, raw sockets."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from pantheon.server.connections import HeaderDeadlineProtocol
from pantheon.server.main import create_app
from pantheon.server.serving import server_config
from pantheon.settings import ServerSettings, Settings
from tests.llm.mock_openai import MockOpenAI
from tests.turns_api.process import start_server, stop

HEADER_TIMEOUT_S = 2
REQUEST = b"GET /health HTTP/1.1\r\nHost: pantheon\r\nX-Padding: " + b"p" * 40 + b"\r\n\r\n"
HANG_GUARD_S = 60  # only a broken server gets near it


@contextlib.asynccontextmanager
async def _connect(url: str) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def _drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[int, bytes]:
    """Send ``REQUEST`` one byte a second until the server answers or closes; (bytes sent,
    what it answered)."""
    for sent in range(1, len(REQUEST) + 1):
        writer.write(REQUEST[sent - 1 : sent])
        await writer.drain()
        try:  # read(n) returns what arrived: a cancelled read() would drop it
            answer = await asyncio.wait_for(reader.read(65536), timeout=1.0)
        except TimeoutError:
            continue
        return sent, answer + await asyncio.wait_for(reader.read(), HANG_GUARD_S)
    return len(REQUEST), await asyncio.wait_for(reader.read(), HANG_GUARD_S)


async def _dripped_headers_get_408(url: str) -> None:
    async with _connect(url) as (reader, writer):
        sent, answer = await _drip(reader, writer)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"PANTHEON_SERVER__HEADER_TIMEOUT_S" in answer
    assert sent < len(REQUEST)  # cut before the headers were complete


async def _dripped_second_request_gets_408(url: str) -> None:
    async with _connect(url) as (reader, writer):
        writer.write(REQUEST)
        first = await asyncio.wait_for(reader.readuntil(b'{"status":"ok"}'), HANG_GUARD_S)
        sent, answer = await _drip(reader, writer)
    assert first.startswith(b"HTTP/1.1 200 ")
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert sent < len(REQUEST)


async def _silent_connection_is_closed(url: str) -> None:
    async with _connect(url) as (reader, _writer):
        assert await asyncio.wait_for(reader.read(), HANG_GUARD_S) == b""


async def _idle_kept_alive_connection_is_closed(url: str) -> None:
    async with _connect(url) as (reader, writer):
        writer.write(REQUEST)
        answer = await asyncio.wait_for(reader.read(), HANG_GUARD_S)  # until the server closes
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert answer.endswith(b'{"status":"ok"}')


async def _a_slow_body_after_prompt_headers_is_served(url: str) -> None:
    """The header deadline ends with the headers: the body has its own (60 s)."""
    body = b'{"name": "slow"}'
    async with _connect(url) as (reader, writer):
        writer.write(
            b"POST /v1/rooms HTTP/1.1\r\nHost: pantheon\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n" % len(body)
        )
        await asyncio.sleep(HEADER_TIMEOUT_S + 1)
        writer.write(body)
        answer = await asyncio.wait_for(reader.readuntil(b"\r\n"), HANG_GUARD_S)
    assert answer.startswith(b"HTTP/1.1 201 "), answer


async def test_slow_and_idle_clients_are_cut_at_their_deadlines(
    tmp_path: Path, upstream: MockOpenAI
) -> None:
    proc, url = await start_server(
        tmp_path,
        upstream,
        PANTHEON_SERVER__HEADER_TIMEOUT_S=str(HEADER_TIMEOUT_S),
        PANTHEON_SERVER__KEEP_ALIVE_S="1",
    )
    try:
        await asyncio.gather(
            _dripped_headers_get_408(url),
            _dripped_second_request_gets_408(url),
            _silent_connection_is_closed(url),
            _idle_kept_alive_connection_is_closed(url),
            _a_slow_body_after_prompt_headers_is_served(url),
        )
    finally:
        await stop(proc)


def test_the_server_config_carries_both_deadlines(tmp_path: Path) -> None:
    deadlines = ServerSettings(header_timeout_s=9, keep_alive_s=7)
    settings = Settings(data_dir=tmp_path, server=deadlines)
    config = server_config(create_app(settings), settings, port=0)
    assert config.timeout_keep_alive == 7
    assert isinstance(config.http, type)
    assert issubclass(config.http, HeaderDeadlineProtocol)
    assert config.http.header_timeout_s == 9
