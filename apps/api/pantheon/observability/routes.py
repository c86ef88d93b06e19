"""``GET /metrics``: the Prometheus exposition text, for admins (docs/observability.md).

In ``keys`` mode only an admin API key may read it, like the admin API; in ``local`` mode
the server listens on loopback only, like every other route.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response

from pantheon.deps import AdminDep
from pantheon.errors import error_responses
from pantheon.observability.metrics import CONTENT_TYPE, render

router = APIRouter(tags=["operations"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}, **error_responses(401, 403)},
)
async def read_metrics(_admin: AdminDep) -> Response:
    """Every metric of this server (all its workers' under ``--workers N``)."""
    body = await asyncio.to_thread(render)  # reading every worker's files is blocking I/O
    return Response(body, media_type=CONTENT_TYPE)
