"""W3C trace context for a turn, without OpenTelemetry: parse and write ``traceparent``.

A traced turn gets a ``TurnTrace`` when it starts (the trace id of an incoming
``traceparent``, or a new one, and the turn span's own id); it is kept in the turn's
``TurnMeta`` (journal, Redis) so whoever records the turn builds one coherent trace.
While the turn runs, ``current_traceparent`` names its span, and ``outgoing_headers``
puts it on upstream LLM requests, MCP calls and remote A2A agent calls.
"""

from __future__ import annotations

import contextvars
import re
import secrets

from pydantic import BaseModel, ConfigDict

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
_ZERO_TRACE, _ZERO_SPAN = "0" * 32, "0" * 16
MAX_HEADER_CHARS = 512

# The ``traceparent`` header of the HTTP request being served (set by the HTTP middleware).
incoming_traceparent: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "incoming_traceparent", default=None
)
# The running turn's own span as a ``traceparent`` (set by the turn runner, per task).
current_traceparent: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "current_traceparent", default=None
)


class TurnTrace(BaseModel):
    """A turn's place in a trace: ids as lower-case hex, ``parent_span_id`` the caller's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trace_id: str
    span_id: str
    parent_span_id: str | None = None
    room_id: str | None = None

    @property
    def traceparent(self) -> str:
        """The turn span as a W3C ``traceparent`` header value (sampled)."""
        return f"00-{self.trace_id}-{self.span_id}-01"


def parse_traceparent(value: str | None) -> tuple[str, str] | None:
    """``(trace_id, parent_span_id)`` of a valid ``traceparent``, else ``None`` (ignored,
    as the W3C spec asks of a malformed header)."""
    if not value or len(value) > MAX_HEADER_CHARS:
        return None
    match = _TRACEPARENT.match(value.strip().lower())
    if match is None:
        return None
    version, trace_id, span_id, _flags = match.groups()
    if version == "ff" or trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN:
        return None
    return trace_id, span_id


def new_span_id() -> str:
    """A random non-zero 64-bit span id in hex."""
    while True:
        span = secrets.token_hex(8)
        if span != _ZERO_SPAN:
            return span


def new_turn_trace(incoming: str | None, room_id: str | None) -> TurnTrace:
    """The trace of a turn starting now: under ``incoming`` when it is a valid header."""
    parsed = parse_traceparent(incoming)
    if parsed is None:
        trace_id = secrets.token_hex(16)
        while trace_id == _ZERO_TRACE:
            trace_id = secrets.token_hex(16)
        return TurnTrace(trace_id=trace_id, span_id=new_span_id(), room_id=room_id)
    trace_id, parent = parsed
    return TurnTrace(
        trace_id=trace_id, span_id=new_span_id(), parent_span_id=parent, room_id=room_id
    )


def outgoing_headers() -> dict[str, str]:
    """``{"traceparent": ...}`` inside a traced turn, else nothing."""
    value = current_traceparent.get()
    return {"traceparent": value} if value is not None else {}
