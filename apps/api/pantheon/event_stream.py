"""The one SSE response every streaming endpoint sends (turns, the OpenAI facade, the
Responses API, AG-UI): sse-starlette's, with its lines ended by LF and its per-event cost
cut to the send itself.

Lines end with a plain LF. CRLF, sse-starlette's default, is legal SSE, yet parsers that
split on "\n" and wait for an empty line (the Open Responses compliance suite's, AG-UI
clients') read nothing from it. ``Event`` is the one event to yield, ``EventStream`` the
one response; both use ``SEP``.

sse-starlette wraps each send in an anyio cancel scope for its optional per-send timeout.
Pantheon sets none (a listener that stops reading holds up only its own response: the turn
runs on and keeps every event for it), yet the scope was still entered and left once per
event per listener, ~10 µs of CPU per relayed delta (docs/benchmarks.md, B11). With no
timeout the send is awaited directly.
"""

from __future__ import annotations

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Message, Send

# Stop reverse proxies (nginx) from buffering the stream.
SSE_HEADERS = {"X-Accel-Buffering": "no"}
SEP = "\n"


class Event(ServerSentEvent):
    """A ``ServerSentEvent`` whose lines end with ``SEP`` (an event object encodes itself:
    the response's separator does not reach it)."""

    DEFAULT_SEPARATOR = SEP


class EventStream(EventSourceResponse):
    """``EventSourceResponse`` whose lines (pings too) end with ``SEP``, and that opens no
    cancel scope per event when ``send_timeout`` is unset; with one set, each send keeps
    its timeout."""

    DEFAULT_SEPARATOR = SEP

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is None:
            await send(message)
        else:
            await super()._send_with_timeout(send, message)
