"""An in-process OTLP/HTTP trace receiver on 127.0.0.1: decodes each POSTed
``ExportTraceServiceRequest`` (protobuf, gzip or not) into plain ``Span`` values."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

WAIT_S = 60.0  # a loaded machine may take long; a lost span fails the test then
STATUS_ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str | None
    attributes: dict[str, Any]
    error: bool
    kind: int
    start_ns: int
    end_ns: int
    service: str


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


def decode(body: bytes) -> list[Span]:
    """The spans of one export request."""
    request = ExportTraceServiceRequest.FromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                spans.append(
                    Span(
                        name=span.name, trace_id=span.trace_id.hex(), span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex() or None,
                        attributes={a.key: _value(a.value) for a in span.attributes},
                        error=span.status.code == STATUS_ERROR, kind=span.kind,
                        start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                        service=str(resource.get("service.name")),
                    )
                )  # fmt: skip
    return spans


class OtlpReceiver:
    """``POST /v1/traces``; every span received is in ``spans``."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self._arrived = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/traces", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.05, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if request.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.spans.extend(decode(body))
        self._arrived.set()
        answer = ExportTraceServiceResponse().SerializeToString()
        return web.Response(body=answer, content_type="application/x-protobuf")

    async def wait_for(self, done: Callable[[list[Span]], bool]) -> list[Span]:
        """The spans so far, once ``done`` holds for them (TimeoutError after a minute)."""
        async with asyncio.timeout(WAIT_S):
            while not done(self.spans):
                self._arrived.clear()
                await self._arrived.wait()
        return list(self.spans)

    def trace(self, trace_id: str) -> list[Span]:
        return [span for span in self.spans if span.trace_id == trace_id]


def otel_env(receiver: OtlpReceiver) -> dict[str, str]:
    """The standard variables that send a process's traces to ``receiver`` quickly."""
    return {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": receiver.endpoint,
        "OTEL_BSP_SCHEDULE_DELAY": "20",
        "OTEL_SERVICE_NAME": "pantheon-test",
    }


def roots(spans: list[Span]) -> list[Span]:
    """The turn spans (named ``turn <mode>``)."""
    return [span for span in spans if span.name.startswith("turn ")]


def children(spans: list[Span], parent: Span) -> list[Span]:
    return [span for span in spans if span.parent_id == parent.span_id]


def one(spans: list[Span], name: str) -> Span:
    found = [span for span in spans if span.name == name]
    assert len(found) == 1, [span.name for span in spans]
    return found[0]
