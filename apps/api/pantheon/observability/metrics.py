"""The service's Prometheus metrics: every one is defined here, once (docs/observability.md).

They live in prometheus-client's default registry, one set per process. Under
``pantheon serve --workers N`` the supervisor sets ``PROMETHEUS_MULTIPROC_DIR`` before
the workers start (workers.py), so each worker writes its values to files there and a
scrape of any worker sums them all (``render``). Gauges are ``livesum``: the sum over
the workers alive now (a dead worker's files are removed by the supervisor).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds: LLM calls and turns take from a fraction of a second to minutes.
_SLOW = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)
_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

TURNS = Counter("pantheon_turns", "Turns ended, by mode and final status", ["mode", "status"])
TURN_DURATION = Histogram(
    "pantheon_turn_duration_seconds", "Turn wall time, start to final event", ["mode"],
    buckets=_SLOW,
)  # fmt: skip
LIVE_TURNS = Gauge(
    "pantheon_live_turns", "Turns running in this process now", multiprocess_mode="livesum"
)
LLM_CALLS = Counter(
    "pantheon_llm_calls", "LLM calls settled, by model alias, purpose and outcome",
    ["model", "purpose", "outcome"],
)  # fmt: skip
LLM_TOKENS = Counter(
    "pantheon_llm_tokens", "Tokens of settled LLM calls (estimated when the upstream sent none)",
    ["model", "direction"],
)  # fmt: skip
LLM_COST = Counter("pantheon_llm_cost_usd", "Cost of settled LLM calls in USD", ["model"])
LLM_LATENCY = Histogram(
    "pantheon_llm_call_duration_seconds", "LLM call latency, retries included", ["model"],
    buckets=_SLOW,
)  # fmt: skip
LLM_TTFT = Histogram(
    "pantheon_llm_ttft_seconds", "Time to the first streamed token of an LLM call", ["model"],
    buckets=_FAST,
)  # fmt: skip
LLM_RETRIES = Counter("pantheon_llm_retries", "Upstream attempts retried", ["model", "code"])
TOOL_CALLS = Counter(
    "pantheon_tool_calls", "Tool calls recorded, by tool and outcome", ["tool", "outcome"]
)
TOOL_DURATION = Histogram(
    "pantheon_tool_call_duration_seconds", "Tool call duration", ["tool"], buckets=_FAST
)
SSE_LISTENERS = Gauge(
    "pantheon_sse_listeners", "Open event streams, by API", ["api"], multiprocess_mode="livesum"
)
INGEST_QUEUED = Gauge(
    "pantheon_knowledge_ingest_queued", "Documents waiting for an ingest worker",
    multiprocess_mode="livesum",
)  # fmt: skip
INGEST_DOCUMENTS = Counter(
    "pantheon_knowledge_ingest_documents", "Documents ingested, by outcome", ["outcome"]
)
BUDGET_REFUSALS = Counter(
    "pantheon_budget_refusals",
    "Spend-limit refusals: a turn refused (402) or an LLM call skipped mid-turn",
    ["stage"],
)
HTTP_REQUESTS = Counter(
    "pantheon_http_requests", "HTTP requests, by method, route template and status",
    ["method", "route", "status"],
)  # fmt: skip
HTTP_DURATION = Histogram(
    "pantheon_http_request_duration_seconds", "HTTP request time to the response's end",
    ["method", "route"], buckets=_FAST,
)  # fmt: skip


@contextmanager
def sse_listener(api: str) -> Iterator[None]:
    """Count an open event stream while the block runs."""
    gauge = SSE_LISTENERS.labels(api=api)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def scrape_registry() -> CollectorRegistry:
    """What a scrape reads: this process's metrics, or every worker's in multiprocess mode."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return REGISTRY


def render() -> bytes:
    """The exposition text of ``scrape_registry``."""
    return generate_latest(scrape_registry())
