"""The parser child's own limits: it never outlives its server or its deadline.

The server kills the child at ``parse_timeout_s`` and on shutdown, but a server that is
killed (SIGKILL, OOM) or stuck cannot. So the child guards itself: a watchdog thread exits
it once its parent is gone or a parse runs past its deadline (plus a grace, so the server's
own timeout normally wins and reports it); ``RLIMIT_CPU`` makes the kernel stop a parse
that holds the GIL in C code where the watchdog cannot run; ``RLIMIT_AS`` caps its memory.
Everything here runs in the child (``start`` is the pool's initializer).
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

GRACE_S = 1.0  # past the server's deadline before the child stops itself
POLL_S = 0.25  # how often the watchdog looks at its parent and the deadline
EXIT_CODE = 70  # the child stopped itself (EX_SOFTWARE)

_deadline: float | None = None


def start(nice: int, parent_pid: int, max_memory_bytes: int) -> None:
    """Pool initializer: lower the priority, cap memory, start the watchdog."""
    os.nice(nice)
    # A parse stopped by the kernel must not write a core file the size of its memory.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if max_memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (max_memory_bytes, max_memory_bytes))
    threading.Thread(target=_watch, args=(parent_pid,), name="parse-watchdog", daemon=True).start()


def run(timeout_s: float, function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` with the deadline ``timeout_s`` (+ grace) enforced in the child."""
    global _deadline
    _deadline = time.monotonic() + timeout_s + GRACE_S
    # One thread parses, so its CPU time never outruns the server's wall-clock deadline.
    _limit_cpu(timeout_s)
    try:
        return function(*args)
    finally:
        _deadline = None
        _limit_cpu(None)


def _limit_cpu(seconds: float | None) -> None:
    """Let this process use ``seconds`` more CPU time (the kernel sends SIGXCPU past it)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = hard
    if seconds is not None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _watch(parent_pid: int) -> None:
    while True:
        time.sleep(POLL_S)
        deadline = _deadline
        orphaned = os.getppid() != parent_pid
        if orphaned or (deadline is not None and time.monotonic() > deadline):
            os._exit(EXIT_CODE)
