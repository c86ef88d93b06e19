"""The supervisor of ``pantheon serve --workers N`` waits for its workers to drain only so
long: a worker that ignores SIGTERM is killed after the drain deadline, so the serve
always ends (and removes its metrics directory) instead of hanging on one process."""

from __future__ import annotations

import multiprocessing
import signal
import socket
import time
from multiprocessing.synchronize import Event

from pantheon.server.workers import Supervisor


def _deaf_worker(deaf: Event) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    deaf.set()
    time.sleep(60)


def _polite_worker() -> None:
    time.sleep(60)  # SIGTERM's default action ends it at once


def test_a_worker_that_ignores_sigterm_is_killed_at_the_drain_deadline() -> None:
    context = multiprocessing.get_context("spawn")
    ignoring = context.Event()
    deaf = context.Process(target=_deaf_worker, args=(ignoring,))
    polite = context.Process(target=_polite_worker)
    deaf.start()
    polite.start()
    assert ignoring.wait(60)
    with socket.socket() as sock:
        supervisor = Supervisor(sock, 2, drain_s=1.0)
        supervisor._workers = [(deaf, 0.0), (polite, 0.0)]
        supervisor._drain()
    assert polite.exitcode == -signal.SIGTERM
    assert deaf.exitcode == -signal.SIGKILL
