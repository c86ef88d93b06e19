"""The operator's other choice for ``/metrics``: a loopback-only port of its own
(``PANTHEON_METRICS__PORT``), with no authentication, next to the API's port.

``pantheon serve`` starts it in the serving process, ``--workers N`` in the supervisor
(which sums every worker's files); the API's own ``GET /metrics`` then answers 404.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import start_http_server

from pantheon.errors import ServiceUnavailable
from pantheon.observability.metrics import scrape_registry

LOOPBACK = "127.0.0.1"
JOIN_S = 5.0


@contextmanager
def metrics_port(port: int | None) -> Iterator[None]:
    """Serve the metrics on ``127.0.0.1:port`` while the block runs (nothing when None)."""
    if port is None:
        yield
        return
    try:
        server, thread = start_http_server(port, addr=LOOPBACK, registry=scrape_registry())
    except OSError as exc:
        raise ServiceUnavailable(
            f"cannot serve metrics on {LOOPBACK}:{port} (PANTHEON_METRICS__PORT): {exc.strerror}"
        ) from exc
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(JOIN_S)
