"""``pantheon serve --workers N``: N worker processes behind one port.

The parent binds the port once and hands the socket to N spawned workers (the kernel
spreads connections between them); each worker is a whole server of its own, with its
own ``TurnAwareServer`` and so its own shutdown grace period. Workers share running
turns, leases, cancels and rate limits through Redis, and the record through PostgreSQL:
``refuse_workers`` says why anything else cannot work. The parent forwards SIGTERM and
SIGINT to every worker and waits for each to drain; a worker that dies (killed, or
failing later) is replaced, one that fails while starting stops the parent (a broken
setup would only fail again).
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
    from pantheon.main import create_app
    from pantheon.observability.logs import configure_logging
    from pantheon.server import TurnAwareServer, run_event_loop, server_config

    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    app = create_app(settings)
    config = server_config(app, settings)
    server = TurnAwareServer(config, app, settings.turns.shutdown_grace_s)
    run_event_loop(server.serve(sockets=[sock]))


class Supervisor:
    """Starts, replaces and stops the workers."""

    def __init__(self, sock: socket.socket, workers: int) -> None:
        self._sock = sock
        self._count = workers
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
        for process, _started in self._workers:
            if process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: each worker drains within its grace
        for process, _started in self._workers:
            process.join()
        return status

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


def serve_workers(host: str, port: int, workers: int, metrics: int | None = None) -> int:
    """Bind ``host:port`` once and serve it with ``workers`` processes; ``metrics``: the
    loopback port the supervisor serves every worker's metrics on, if any."""
    config = uvicorn.Config("pantheon.main:create_app", host=host, port=port, log_config=None)
    multiprocessing.allow_connection_pickling()  # the socket travels to spawned workers
    sock = config.bind_socket()
    try:
        with multiprocess_metrics(), metrics_port(metrics):  # every worker's in one scrape
            return Supervisor(sock, workers).run()
    finally:
        sock.close()
