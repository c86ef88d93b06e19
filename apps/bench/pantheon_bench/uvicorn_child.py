"""How a bench child process serves its ASGI app: uvicorn on 127.0.0.1, quiet, with a deep
backlog. The same for the Pantheon server and the floor relay, so they differ only in the
app (the mock upstream keeps its own longer keep-alive)."""

from __future__ import annotations

from typing import Any

import uvicorn


async def serve_app(app: Any, port: int) -> None:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, backlog=8192
    )
    await uvicorn.Server(config).serve()
