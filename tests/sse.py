"""SSE helpers for tests, on top of ``httpx-sse``; ``lf_events`` alone reads a stream by
hand, on purpose, as the strictest parsers do.

An event is ``(id, data)``: the SSE ``id:`` as an int and the ``data:`` JSON as a dict.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent

Event = tuple[int, dict[str, Any]]
SSE_HEADERS = {"Accept": "text/event-stream"}


def to_event(sse: ServerSentEvent) -> Event:
    data: dict[str, Any] = json.loads(sse.data)
    return int(sse.id), data


def events_of(response: httpx.Response) -> list[Event]:
    """Every event of a response that was read whole (e.g. through ASGITransport)."""
    return [to_event(sse) for sse in EventSource(response).iter_sse()]


def types(events: list[Event]) -> list[str]:
    return [str(data["type"]) for _, data in events]


class EventReader:
    """Reads a streamed SSE response in steps; ``seen`` holds every event read so far."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.seen: list[Event] = []
        self._sse: AsyncGenerator[ServerSentEvent, None] = EventSource(response).aiter_sse()

    async def until(self, type_: str, agent_key: str | None = None) -> list[Event]:
        """Read through the next event of ``type_`` (and ``agent_key``); the events read."""
        start = len(self.seen)
        async for sse in self._sse:
            self.seen.append(event := to_event(sse))
            data = event[1]
            if data["type"] == type_ and agent_key in (None, data.get("agent_key")):
                return self.seen[start:]
        raise AssertionError(f"the stream ended before a {type_!r} event: {types(self.seen)}")

    async def rest(self) -> list[Event]:
        """Read to the end of the stream; the events read."""
        start = len(self.seen)
        async for sse in self._sse:
            self.seen.append(to_event(sse))
        return self.seen[start:]

    async def aclose(self) -> None:
        await self._sse.aclose()


async def read_all(response: httpx.Response) -> list[Event]:
    """Every event of a streamed response, to its end."""
    reader = EventReader(response)
    try:
        return await reader.rest()
    finally:
        await reader.aclose()


@contextlib.asynccontextmanager
async def open_stream(
    http: httpx.AsyncClient, url: str, *, method: str = "GET", **kwargs: Any
) -> AsyncIterator[EventReader]:
    """Open an SSE request (``Accept: text/event-stream``); closing it disconnects."""
    headers = {**SSE_HEADERS, **kwargs.pop("headers", {})}
    async with http.stream(method, url, headers=headers, **kwargs) as response:
        assert response.status_code == 200, (await response.aread()).decode()
        reader = EventReader(response)
        try:
            yield reader
        finally:
            await reader.aclose()


async def wait_finished(
    http: httpx.AsyncClient, turn_id: str, *, attempts: int = 500
) -> dict[str, Any]:
    """``GET /v1/turns/{id}`` once the turn is no longer running (a bounded poll)."""
    for _ in range(attempts):
        response = await http.get(f"/v1/turns/{turn_id}")
        if response.status_code != 409:
            assert response.status_code == 200, response.text
            detail: dict[str, Any] = response.json()
            return detail
        await asyncio.sleep(0.01)
    raise AssertionError(f"turn {turn_id} still running after {attempts} polls")


def lf_events(raw: bytes) -> list[str]:
    """The ``data`` of each event, read the way the Open Responses compliance suite reads
    a stream: split on "\\n", an event ends at an empty line. CRLF is legal SSE, yet such a
    parser reads nothing from it, so a CR anywhere fails here."""
    assert b"\r" not in raw, f"a CR in the stream: {raw[:200]!r}"
    assert raw.endswith(b"\n\n"), f"the stream does not end with an empty line: {raw[-80:]!r}"
    events: list[str] = []
    data: str | None = None
    for line in raw.decode().split("\n"):
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif line == "" and data is not None:
            events.append(data)
            data = None
    return events
