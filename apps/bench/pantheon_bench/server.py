"""The Pantheon server as benchmarks run it: ``create_app`` under uvicorn, one worker.

Same app and uvicorn defaults as ``pantheon serve`` (uvloop and httptools when
installed), with access logs off (``PANTHEON_LOG_LEVEL=WARNING``) and one bench-only route,
``GET /_bench/stats``, that counts the server's asyncio tasks: the package has no such
hook, and a leak of tasks is what the connect/disconnect benchmark looks for. With
``PANTHEON_BENCH_PROFILE=<path>`` the whole run is sampled by pyinstrument and written to
``<path>.txt`` and ``<path>.html`` on shutdown.

    python -m pantheon_bench.server --port 8092   (configured by PANTHEON_* variables)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
from pathlib import Path

from fastapi import FastAPI

from pantheon.db.migrations import upgrade
from pantheon.server.main import create_app
from pantheon.server.serving import run_event_loop
from pantheon.settings import Settings
from pantheon_bench.uvicorn_child import serve_app


def bench_app(settings: Settings) -> FastAPI:
    app = create_app(settings)

    async def stats(collect: bool = False) -> dict[str, int]:
        if collect:
            gc.collect()
        return {"tasks": len(asyncio.all_tasks()), "pid": os.getpid()}

    app.add_api_route("/_bench/stats", stats, methods=["GET"], include_in_schema=False)
    # Ahead of the web client's catch-all mount at "/", which would shadow it.
    app.router.routes.insert(0, app.router.routes.pop())
    return app


async def serve(port: int) -> None:
    settings = Settings()
    await upgrade(settings.resolved_database_url)
    await serve_app(bench_app(settings), port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    profile = os.environ.get("PANTHEON_BENCH_PROFILE")
    if not profile:
        run_event_loop(serve(args.port))
        return
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001, async_mode="disabled")
    profiler.start()
    try:
        run_event_loop(serve(args.port))
    finally:
        profiler.stop()
        # Text only, fastest first: the harness stops this process soon after the run.
        Path(f"{profile}.flat.txt").write_text(profiler.output_text(flat=True))
        Path(f"{profile}.txt").write_text(profiler.output_text(show_all=False))


if __name__ == "__main__":
    main()
