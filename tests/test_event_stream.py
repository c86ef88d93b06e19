"""The shared SSE response sends each event without a cancel scope of its own when no send
timeout is set, and keeps sse-starlette's per-send timeout when one is.

Counting the scopes is what makes this fail if an sse-starlette release renames the hook
``EventStream`` overrides: the frames would still arrive, only slower."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from sse_starlette import ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.types import Message, Receive, Scope, Send

from pantheon.event_stream import SSE_HEADERS, Event, EventStream

EVENTS = 5


async def _events() -> AsyncIterator[ServerSentEvent]:
    for n in range(EVENTS):
        yield ServerSentEvent(data=f"event {n}", id=str(n + 1))


def _counting_scopes(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    opened: list[float | None] = []
    real = anyio.move_on_after

    def counted(delay: float | None, shield: bool = False) -> Any:
        opened.append(delay)
        return real(delay, shield=shield)

    monkeypatch.setattr(anyio, "move_on_after", counted)
    return opened


async def _get(response: EventStream) -> httpx.Response:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await response(scope, receive, send)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.get("/")


async def test_events_go_out_without_a_cancel_scope_each(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_scopes(monkeypatch)
    got = await _get(EventStream(_events(), ping=600, headers=SSE_HEADERS))
    assert got.status_code == 200
    assert got.headers["x-accel-buffering"] == "no"
    assert [line for line in got.text.splitlines() if line.startswith("data:")] == [
        f"data: event {n}" for n in range(EVENTS)
    ]
    assert opened == []


async def test_a_send_timeout_still_bounds_each_send(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _counting_scopes(monkeypatch)
    await _get(EventStream(_events(), ping=600, send_timeout=0.5))
    assert opened.count(0.5) == EVENTS

    async def stuck(message: Message) -> None:
        if message["type"] == "http.response.body":
            await anyio.sleep_forever()

    response = EventStream(_events(), ping=600, send_timeout=0.01)
    with pytest.raises(SendTimeoutError):
        await response._send_with_timeout(stuck, {"type": "http.response.body", "body": b""})


async def test_every_line_ends_with_lf_pings_too() -> None:
    """Events, whatever object they come as, and the keep-alive comment: no CR anywhere
    (tests/test_sse_line_endings.py checks each endpoint's stream)."""
    pinged = anyio.Event()

    async def events() -> AsyncIterator[Any]:
        yield Event(data="one", id="1", event="first")
        yield {"data": "two"}
        await pinged.wait()
        yield "three"

    response = EventStream(events(), ping=0.01)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        async def watched(message: Message) -> None:
            if message.get("body", b"").startswith(b":"):
                pinged.set()
            await send(message)

        await response(scope, receive, watched)

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        raw = (await client.get("/")).content
    assert b"\r" not in raw
    frames = raw.decode().split("\n\n")
    assert frames[:2] == ["id: 1\nevent: first\ndata: one", "data: two"]
    assert frames[2].startswith(": ping")
    assert frames[-2:] == ["data: three", ""]
