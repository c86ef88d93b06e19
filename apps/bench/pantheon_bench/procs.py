"""Child processes on loopback (the mock upstream, the Pantheon server) and /proc readings.

Every child gets a free port on 127.0.0.1, logs to ``bench-output/<name>.log``, is waited
for until its port answers (bounded), and is stopped with SIGINT, then SIGKILL after a
bounded grace, so a failing benchmark never leaves servers behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[3]
OUTPUT = ROOT / "bench-output"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (``VmRSS`` in /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Child:
    """A running child process serving HTTP on ``port``."""

    name: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self, grace_s: float = 10.0) -> None:
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def __enter__(self) -> Child:
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.stop()


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name (which may hold spaces); None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it, found by walking /proc for parent ids
    (``/proc/<pid>/task/*/children`` needs a kernel option that not every kernel has)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue += children.get(current, [])
    return found


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU time of ``pids`` (``utime`` + ``stime``, fields 14 and 15 of
    /proc/<pid>/stat); a process that has exited counts nothing."""
    ticks = 0
    for pid in pids:
        if (fields := _stat_fields(pid)) is not None:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


# Only a hang guard: on a loaded 2-core machine a server took over 60 s to import and
# listen (issue 33), so readiness is polled, never assumed after a guessed time.
READY_GUARD_S = 300


def start_child(
    name: str, module: str, args: Sequence[str], port: int, env: Mapping[str, str] | None = None
) -> Child:
    """``python -m module args`` with ``port`` ready (else RuntimeError, ``READY_GUARD_S``)."""
    return start_process(name, [sys.executable, "-m", module, *args], port, env)


def start_process(
    name: str, argv: Sequence[str], port: int, env: Mapping[str, str] | None = None
) -> Child:
    """``argv`` with ``port`` ready: polled until it listens; RuntimeError if it exits, or
    is still not listening after ``READY_GUARD_S``."""
    OUTPUT.mkdir(exist_ok=True)
    log = (OUTPUT / f"{name}.log").open("wb")
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "apps" / "bench"), child_env.get("PYTHONPATH", "")) if p
    )
    process = subprocess.Popen(
        list(argv), stdout=log, stderr=subprocess.STDOUT, env=child_env, cwd=ROOT
    )
    child = Child(name, port, process)
    deadline = time.monotonic() + READY_GUARD_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}; see {log.name}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return child
        except OSError:
            time.sleep(0.05)
    child.stop()
    raise RuntimeError(
        f"{name} did not listen on port {port} within {READY_GUARD_S} s; see {log.name}"
    )


def start_mock(config: Path, seed: int = 1) -> Child:
    port = free_port()
    args = ["--port", str(port), "--config", str(config), "--seed", str(seed)]
    return start_child("mock-upstream", "pantheon_bench.mock_upstream", args, port)
