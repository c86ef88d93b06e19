"""The one SSE response every streaming endpoint sends (turns, the OpenAI facade, the
Responses API, AG-UI): sse-starlette's, with its per-event cost cut to the send itself.

sse-starlette wraps each send in an anyio cancel scope for its optional per-send timeout.
Pantheon sets none (a listener that stops reading holds up only its own response: the turn
runs on and keeps every event for it), yet the scope was still entered and left once per
event per listener, ~10 µs of CPU per relayed delta (docs/benchmarks.md, B11). With no
timeout the send is awaited directly.
"""

from __future__ import annotations

from sse_starlette import EventSourceResponse
from starlette.types import Message, Send

# Stop reverse proxies (nginx) from buffering the stream.
SSE_HEADERS = {"X-Accel-Buffering": "no"}


class EventStream(EventSourceResponse):
    """``EventSourceResponse`` that opens no cancel scope per event when ``send_timeout``
    is unset; with one set, each send keeps its timeout."""

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is None:
            await send(message)
        else:
            await super()._send_with_timeout(send, message)
