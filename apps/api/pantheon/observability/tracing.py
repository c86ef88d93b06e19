"""OpenTelemetry traces of turns, over OTLP/HTTP, off unless the operator configures them.

On when ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set
(and neither ``OTEL_SDK_DISABLED=true`` nor ``OTEL_TRACES_EXPORTER=none``); the exporter
reads the other standard ``OTEL_EXPORTER_OTLP_*`` variables itself (headers, timeout,
compression), the resource ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES``. Prompt
and answer text goes into spans only with
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``. The OpenTelemetry SDK (the
``otel`` extra) is imported only when tracing is on. Spans are built after the fact from
the turn's events (``tracing_fold``) and handed to a batch processor, which exports them
from its own thread (``OTEL_BSP_*`` variables; a full queue drops spans, never blocks).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pantheon.observability.spans import SpanData
from pantheon.observability.trace_context import TurnTrace, incoming_traceparent, new_turn_trace

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor

log = logging.getLogger(__name__)
SCOPE = "pantheon"
_TRUE = ("true", "1", "yes")


@dataclass(frozen=True, slots=True)
class TraceConfig:
    """What the ``OTEL_*`` variables ask for."""

    enabled: bool
    capture_content: bool = False


def trace_config(environ: Mapping[str, str]) -> TraceConfig:
    """Tracing is on only when an OTLP endpoint is named and nothing turns it off."""
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    disabled = environ.get("OTEL_SDK_DISABLED", "").strip().lower() in _TRUE
    exporter = environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower()
    capture = environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
    return TraceConfig(
        enabled=bool(endpoint) and not disabled and exporter != "none",
        capture_content=capture.strip().lower() in _TRUE,
    )


class SpanExport:
    """The process's span pipeline: ReadableSpans from ``SpanData``, to the processor."""

    def __init__(self, processor: SpanProcessor, resource: Resource, config: TraceConfig) -> None:
        self.processor = processor
        self.resource = resource
        self.config = config

    def export(self, trace_id: str, spans: Sequence[SpanData]) -> None:
        """Queue ``spans`` (one trace) for export; never blocks on the network."""
        from pantheon.observability.tracing_otel import readable_span

        for span in spans:
            self.processor.on_end(readable_span(trace_id, span, self.resource))

    def shutdown(self) -> None:
        """Flush what is queued (bounded by ``OTEL_BSP_EXPORT_TIMEOUT``) and stop."""
        self.processor.shutdown()


_active: SpanExport | None = None


def active() -> SpanExport | None:
    """The installed span export, or ``None`` when tracing is off."""
    return _active


def turn_trace(room_id: str | None) -> TurnTrace | None:
    """A new turn's trace (under the request's ``traceparent``), or ``None`` when off."""
    if _active is None:
        return None
    return new_turn_trace(incoming_traceparent.get(), room_id)


def install(
    environ: Mapping[str, str], processor: SpanProcessor | None = None
) -> SpanExport | None:
    """Turn tracing on for this process if ``environ`` asks for it (``processor``: tests)."""
    global _active
    config = trace_config(environ)
    if not config.enabled and processor is None:
        return None
    from pantheon.observability.tracing_otel import batch_processor, resource

    _active = SpanExport(processor or batch_processor(environ), resource(), config)
    log.info("tracing: spans go to the OTLP/HTTP endpoint of the OTEL_* variables")
    return _active


def uninstall(export: SpanExport | None) -> None:
    """Flush and stop ``export`` (what ``install`` returned) if it is still the active one."""
    global _active
    if export is None:
        return
    if _active is export:
        _active = None
    export.shutdown()
