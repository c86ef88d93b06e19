"""A deadline on reading a request's headers, which uvicorn does not have.

uvicorn bounds only the idle time between requests (``timeout_keep_alive``); a connection
that sends nothing, or sends its headers one byte at a time, is held for as long as the
client likes (slowloris), each one a socket and a parser. ``HeaderDeadlineProtocol`` (the
httptools protocol uvicorn picks by default) gives every request ``header_timeout_s`` from
its first byte (from the connection's start for the first request) to the end of its
headers: a request cut short gets a 408 and the connection closes; an idle new connection
is closed without a word, as after the keep-alive timeout. Request bodies have their own
deadline (``limits.body_timeout_s``, ``pantheon.body_limits``).
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from pantheon.settings import ServerSettings

_TIMEOUT_BODY = json.dumps(
    {
        "detail": "the request headers did not arrive in time (PANTHEON_SERVER__HEADER_TIMEOUT_S)",
        "code": "request_timeout",
    }
).encode()
TIMEOUT_RESPONSE = b"".join(
    [
        b"HTTP/1.1 408 Request Timeout\r\n",
        b"content-type: application/json\r\n",
        b"content-length: %d\r\n" % len(_TIMEOUT_BODY),
        b"connection: close\r\n\r\n",
        _TIMEOUT_BODY,
    ]
)


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on each request's headers."""

    header_timeout_s: float = ServerSettings.model_fields["header_timeout_s"].default

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_deadline: asyncio.TimerHandle | None = None
        self._request_begun = False
        super().connection_made(transport)
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_begun = True
        self._arm_header_deadline()  # a later request on a kept-alive connection

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        self._request_begun = False
        super().on_headers_complete()

    def _arm_header_deadline(self) -> None:
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(
                self.header_timeout_s, self._header_deadline_passed
            )

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _header_deadline_passed(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # A pipelined request waits behind a response still being sent (a stream):
            # its headers are read when that response is done.
            self._arm_header_deadline()
            return
        if self._request_begun:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def header_deadline_protocol(header_timeout_s: float) -> type[HeaderDeadlineProtocol]:
    """The protocol class for uvicorn's ``http=`` with this header deadline."""

    class Configured(HeaderDeadlineProtocol):
        pass

    Configured.header_timeout_s = header_timeout_s
    return Configured
