"""``pantheon serve --workers N``: N worker processes behind one port.

The parent binds the port once and hands the socket to N spawned workers (the kernel
spreads connections between them); each worker is a whole server of its own, with its
own ``TurnAwareServer`` and so its own shutdown grace period. Workers share running
turns, leases, cancels and rate limits through Redis, and the record through PostgreSQL:
``refuse_workers`` says why anything else cannot work. The parent forwards SIGTERM and
SIGINT to every worker and waits for each to drain, at most the grace period and a
margin (then it kills the worker, so the serve always ends and cleans up); a worker
that dies (killed, or failing later) is replaced, one that fails while starting stops
the parent (a broken setup would only fail again).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.context import SpawnProcess
from types import FrameType

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from pantheon.observability.multiproc import multiprocess_metrics, worker_exited
from pantheon.observability.port import metrics_port
from pantheon.settings import Settings

log = logging.getLogger("pantheon")
STARTUP_S = 15.0  # a worker that fails (exit > 0) sooner is taken as a broken setup
POLL_S = 0.5
DRAIN_MARGIN_S = 15.0  # beyond the turns' grace: closing streams, pools and the journal


def refuse_workers(settings: Settings, workers: int) -> str | None:
    """Why ``workers`` processes cannot serve with ``settings``, or ``None``."""
    if workers < 1:
        return f"--workers must be at least 1, got {workers}"
    if workers == 1:
        return None
    if settings.resolved_database_url.startswith("sqlite"):
        return (
            f"refusing --workers {workers}: SQLite allows one writing process. Set "
            "PANTHEON_DATABASE_URL to a PostgreSQL database (postgresql+asyncpg://...) "
            "and PANTHEON_REDIS_URL to a Redis server (docs/operations.md)."
        )
    if not settings.redis_url:
        return (
            f"refusing --workers {workers}: workers share running turns, session leases "
            "and rate limits through Redis; set PANTHEON_REDIS_URL (redis://host:6379/0)."
        )
    return None


def _worker(sock: socket.socket) -> None:
    """One worker: the whole app on the shared socket (runs in a spawned process)."""
    # Its own process group: a terminal's Ctrl-C reaches only the parent, which forwards
    # one SIGTERM (a second signal would make uvicorn skip the turns' grace period).
    os.setpgid(0, 0)
    from pantheon.observability.logs import configure_logging
    from pantheon.server.main import create_app
    from pantheon.server.serving import TurnAwareServer, run_event_loop, server_config

    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    app = create_app(settings)
    config = server_config(app, settings)
    server = TurnAwareServer(config, app, settings.turns.shutdown_grace_s)
    run_event_loop(server.serve(sockets=[sock]))


class Supervisor:
    """Starts, replaces and stops the workers."""

    def __init__(self, sock: socket.socket, workers: int, drain_s: float) -> None:
        self._sock = sock
        self._count = workers
        self._drain_s = drain_s
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[tuple[SpawnProcess, float]] = []
        self._stopping = False

    def _spawn(self) -> tuple[SpawnProcess, float]:
        process = self._context.Process(target=_worker, args=(self._sock,), daemon=False)
        process.start()
        return process, time.monotonic()

    def _stop(self, signum: int, _frame: FrameType | None) -> None:
        self._stopping = True

    def run(self) -> int:
        """Serve until SIGTERM / SIGINT; the exit status."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._stop)
        self._workers = [self._spawn() for _ in range(self._count)]
        log.info("serving with %d workers", self._count)
        status = 0
        while not self._stopping:
            time.sleep(POLL_S)
            status = self._replace_dead()
            if status:
                self._stopping = True
        self._drain()
        return status

    def _drain(self) -> None:
        """SIGTERM every worker and wait for them to drain; kill any still alive after
        ``drain_s`` (one stuck in shutdown must not keep the serve, and its port, forever)."""
        for process, _started in self._workers:
            if process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: each worker drains within its grace
        deadline = time.monotonic() + self._drain_s
        for process, _started in self._workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                log.warning(
                    "worker %s still running after %.0fs; killing it", process.pid, self._drain_s
                )
                process.kill()
                process.join()

    def _replace_dead(self) -> int:
        for index, (process, started) in enumerate(self._workers):
            if process.is_alive():
                continue
            code = process.exitcode or 0
            if process.pid is not None:
                worker_exited(process.pid)
            failed = code == STARTUP_FAILURE or (
                code > 0 and time.monotonic() - started < STARTUP_S
            )
            if failed:  # it could not start: another would fail the same way
                log.error("worker %s could not start (exit %s); stopping", process.pid, code)
                return 1
            log.warning("worker %s died (%s); starting another", process.pid, process.exitcode)
            self._workers[index] = self._spawn()
        return 0


def serve_workers(
    host: str, port: int, workers: int, settings: Settings, metrics: int | None = None
) -> int:
    """Bind ``host:port`` once and serve it with ``workers`` processes; ``metrics``: the
    loopback port the supervisor serves every worker's metrics on, if any."""
    config = uvicorn.Config(
        "pantheon.server.main:create_app", host=host, port=port, log_config=None
    )
    multiprocessing.allow_connection_pickling()  # the socket travels to spawned workers
    sock = config.bind_socket()
    try:
        with multiprocess_metrics(), metrics_port(metrics):  # every worker's in one scrape
            drain_s = settings.turns.shutdown_grace_s + DRAIN_MARGIN_S
            return Supervisor(sock, workers, drain_s).run()
    finally:
        sock.close()
