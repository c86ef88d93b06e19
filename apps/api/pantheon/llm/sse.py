"""Server-sent events from an upstream's body bytes, as the WHATWG event-stream rules read them.

Upstream calls run on aiohttp alone (ADR 0027), so this reads its byte chunks directly:
one pass per chunk, no text decoder or line iterator layered per delta. Lines end in CRLF,
LF or CR (a CRLF split across two chunks is one line end); ``id`` and ``retry`` fields are
not used by LLM upstreams and are ignored. The body is untrusted: an unfinished line or
one event's data past ``max_bytes`` is ``EventTooLarge`` (a ``BadRequest``: the answer is
unusable, and asking again would not help) instead of growing forever.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pantheon.llm.errors import BadRequest

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = "\ufeff"


class EventTooLarge(BadRequest):
    """An event (or a line still waiting for its end) is larger than the decoder allows."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event: its type (``message`` unless named) and its data lines joined."""

    data: str
    event: str = "message"


class SSEDecoder:
    """Feed it the body's chunks in order; each call returns the events they completed."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._pending = b""  # the start of a line whose end has not arrived
        self._after_cr = False  # the last chunk ended in CR: a leading LF is its CRLF
        self._started = False
        self._data: list[str] = []
        self._size = 0
        self._event = ""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events ``chunk`` completes, in order."""
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = chunk.endswith(b"\r")
        buffer = self._pending + chunk if self._pending else chunk
        lines = _LINE_END.split(buffer) if b"\r" in buffer else buffer.split(b"\n")
        self._pending = lines.pop()
        if len(self._pending) > self._max_bytes:
            raise EventTooLarge(f"an upstream event line is longer than {self._max_bytes} bytes")
        events: list[ServerSentEvent] = []
        for line in lines:
            event = self._line(line.decode("utf-8", "replace"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if not self._started:
            self._started = True
            line = line.removeprefix(_BOM)
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._size += len(value) + 1
            if self._size > self._max_bytes:
                raise EventTooLarge(f"an upstream event is larger than {self._max_bytes} bytes")
            self._data.append(value)
        elif name == "event":
            self._event = value
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        data, event = self._data, self._event or "message"
        self._data, self._size, self._event = [], 0, ""
        return ServerSentEvent("\n".join(data), event) if data else None
