"""Real MCP servers for the tool tests: the SDK server in ``mcp_server.py``, started as a
stdio child by Pantheon itself, or as a Streamable HTTP process on a free loopback port."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from pantheon.settings import Settings, ToolSettings
from pantheon.tools.toolbox import ToolBox, open_toolbox

if TYPE_CHECKING:  # oauth_servers imports this module
    from tests.app_factory import AppWith
    from tests.auth.oidc_provider import MockProvider
    from tests.tools.oauth_servers import World

SERVER_SCRIPT = Path(__file__).with_name("mcp_server.py")
STDIO_COMMAND = f'["{sys.executable}", "{SERVER_SCRIPT}", "stdio"]'
# Fast reconnects and short calls keep the tests quick; connects stay generous because a
# loaded CI machine can take seconds to start a Python child.
FAST = ToolSettings(
    timeout_s=5.0,
    mcp_connect_timeout_s=20.0,
    mcp_backoff_base_s=0.2,
    mcp_backoff_max_s=0.4,
    max_result_chars=500,
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HttpServer:
    """``mcp_server.py http PORT`` as a child process that can be stopped and restarted."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, str(SERVER_SCRIPT), "http", str(self.port)]
        self._process = subprocess.Popen(command)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            if self._process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"MCP test server did not start on port {self.port}")

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    server = HttpServer(free_port())
    server.start()
    yield server
    server.stop()


def write_config(tmp_path: Path, toml: str) -> Path:
    path = tmp_path / "pantheon.toml"
    path.write_text(toml)
    return path


@contextlib.asynccontextmanager
async def toolbox_for(
    tmp_path: Path, toml: str, tools: ToolSettings = FAST
) -> AsyncIterator[ToolBox]:
    settings = Settings(data_dir=tmp_path, config_file=write_config(tmp_path, toml), tools=tools)
    async with open_toolbox(settings) as toolbox:
        yield toolbox


async def wait_until_available(toolbox: ToolBox, server: str, timeout_s: float = 30) -> None:
    """Poll the catalog until ``server``'s tools are available again (after a backoff)."""
    with anyio.fail_after(timeout_s):
        while True:
            rows = [r for r in await toolbox.catalog() if r.source == f"mcp:{server}"]
            if rows and all(r.available for r in rows):
                return
            await anyio.sleep(0.1)


@pytest.fixture(scope="module")
def oauth_processes() -> Iterator[tuple[MockProvider, str]]:
    """``oidc-provider-mock`` and the protected MCP server, shared by a module's tests."""
    from tests.tools.oauth_servers import provider_and_server

    with provider_and_server() as started:
        yield started


@pytest.fixture
async def world(
    app_with: AppWith, tmp_path: Path, oauth_processes: tuple[MockProvider, str]
) -> AsyncIterator[World]:
    """The app with alice and bob and the protected server as ``remote`` (auth = "oauth")."""
    from tests.tools.oauth_servers import oauth_world

    async with oauth_world(app_with, tmp_path, *oauth_processes) as started:
        yield started
