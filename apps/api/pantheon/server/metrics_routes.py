"""``GET /metrics``: the Prometheus exposition text, for admins (docs/observability.md).

In ``keys`` mode only an admin API key may read it, like the admin API; in ``local`` mode
the server listens on loopback only, like every other route. Or the operator serves it
on a loopback port of its own (``observability/port.py``) and this route answers 404.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response

from pantheon.deps import AdminDep, SettingsDep
from pantheon.errors import NotFound, error_responses
from pantheon.observability.metrics import CONTENT_TYPE, render

router = APIRouter(tags=["operations"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}, **error_responses(401, 403, 404)},
)
async def read_metrics(_admin: AdminDep, settings: SettingsDep) -> Response:
    """Every metric of this server (all its workers' under ``--workers N``); 404 when the
    operator serves them on a loopback port instead (``PANTHEON_METRICS__PORT``)."""
    if settings.metrics.port is not None:
        raise NotFound(
            f"metrics are served on 127.0.0.1:{settings.metrics.port} (PANTHEON_METRICS__PORT)"
        )
    body = await asyncio.to_thread(render)  # reading every worker's files is blocking I/O
    return Response(body, media_type=CONTENT_TYPE)
