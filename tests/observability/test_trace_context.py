"""W3C ``traceparent``: what is honoured, what is ignored, and the switch that turns
tracing on (only an OTLP endpoint in the standard variables)."""

from __future__ import annotations

import pytest

from pantheon.live.observers.tracing_turn import traced
from pantheon.observability.trace_context import (
    new_turn_trace,
    outgoing_headers,
    parse_traceparent,
)
from pantheon.observability.tracing import trace_config

TRACE, SPAN = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"


@pytest.mark.parametrize(
    "header",
    [
        None, "", "garbage", f"00-{TRACE}-{SPAN}", f"ff-{TRACE}-{SPAN}-01",
        f"00-{'0' * 32}-{SPAN}-01", f"00-{TRACE}-{'0' * 16}-01", f"00-{TRACE[:-1]}x-{SPAN}-01",
        f"00-{TRACE}-{SPAN}-01" + " " * 600,
    ],
)  # fmt: skip
def test_a_malformed_traceparent_is_ignored(header: str | None) -> None:
    assert parse_traceparent(header) is None
    trace = new_turn_trace(header, None)
    assert trace.parent_span_id is None
    assert trace.trace_id != TRACE


def test_a_valid_traceparent_parents_the_turn_and_goes_out_only_inside_it() -> None:
    trace = new_turn_trace(f"00-{TRACE.upper()}-{SPAN}-00", "room-1")
    assert (trace.trace_id, trace.parent_span_id, trace.room_id) == (TRACE, SPAN, "room-1")
    assert trace.span_id != SPAN
    assert outgoing_headers() == {}
    with traced(trace):
        assert outgoing_headers() == {"traceparent": f"00-{TRACE}-{trace.span_id}-01"}
    assert outgoing_headers() == {}


@pytest.mark.parametrize(
    ("environ", "enabled"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
    ],
)
def test_tracing_is_on_only_with_an_endpoint_and_nothing_turning_it_off(
    environ: dict[str, str], enabled: bool
) -> None:
    config = trace_config(environ)
    assert config.enabled is enabled
    assert config.capture_content is False
