"""Serving the app with uvicorn, with turn-aware shutdown.

On SIGTERM uvicorn would first close connections and wait for in-flight requests, so a
JSON turn request would hold the server until its turn ended, with no bound. Here the
live-turn registry gets its grace period first: new turns are refused (503), running ones
may finish for ``turns.shutdown_grace_s`` and are then cancelled and recorded; only then
does uvicorn close connections and run the lifespan shutdown. Until then the server still
accepts connections, so streams go on until their turn ends and a listener that joins
during the grace period gets the whole stream.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvicorn
from fastapi import FastAPI
from sse_starlette.sse import AppStatus

from pantheon.deps import services_of
from pantheon.server.connections import header_deadline_protocol
from pantheon.settings import Settings

T = TypeVar("T")


def run_event_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on uvloop when installed (uvicorn[standard] brings it), else on asyncio's
    loop. ``uvicorn.Config(loop="auto")`` only applies when uvicorn creates the loop itself,
    which it does not when we await ``Server.serve()`` (docs/benchmarks.md)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency via uvicorn[standard]
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def server_config(app: FastAPI, settings: Settings, **options: Any) -> uvicorn.Config:
    """uvicorn's config for ``app`` with the connection deadlines of ``settings.server``
    (a header deadline uvicorn lacks, its keep-alive timeout); ``options``: host, port ..."""
    return uvicorn.Config(
        app,
        http=header_deadline_protocol(settings.server.header_timeout_s),
        timeout_keep_alive=settings.server.keep_alive_s,
        log_level=settings.log_level.lower(),
        log_config=None,  # its loggers go to ours (observability/logs.py): one format, redacted
        **options,
    )


class TurnAwareServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: FastAPI, grace_s: float) -> None:
        # sse-starlette ends every stream about a second after SIGTERM by default; here a
        # stream ends with its turn, and turns end within the grace period (below).
        AppStatus.enable_automatic_graceful_drain = False
        super().__init__(config)
        self._app = app
        self._grace_s = grace_s

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        services = services_of(self._app)
        if services is not None:  # the lifespan finished starting
            await services.live_turns.shutdown(self._grace_s)
        await super().shutdown(sockets)
