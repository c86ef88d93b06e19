"""A Streamable HTTP MCP server: headers with ${VAR}, down at start, dies and comes back."""

from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.engine.tooling import ToolScope
from tests.tools.conftest import HttpServer, free_port, toolbox_for, wait_until_available

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)


def _config(url: str) -> str:
    return f"""
[mcp_servers.remote]
url = "{url}"
headers = {{ Authorization = "Bearer ${{PANTHEON_TEST_MCP_TOKEN}}", X-Team = "blue" }}
timeout_s = 1.5
"""


async def test_lists_calls_and_sends_expanded_headers(
    tmp_path: Path, http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANTHEON_TEST_MCP_TOKEN", "s3cret")
    async with toolbox_for(tmp_path, _config(http_server.url)) as toolbox:
        names = [d.name for d in await toolbox.definitions(["remote.*"])]
        assert "remote__add" in names
        assert "remote__header" in names
        auth = await toolbox.call("remote__header", {"name": "Authorization"}, SCOPE)
        assert (auth.ok, auth.content) == (True, "Bearer s3cret")
        team = await toolbox.call("remote__header", {"name": "X-Team"}, SCOPE)
        assert team.content == "blue"
        hang = await toolbox.call("remote__hang", {}, SCOPE)
        assert not hang.ok
        assert "no answer" in hang.content
        added = await toolbox.call("remote__add", {"a": 20, "b": 22}, SCOPE)
        assert (added.ok, added.content) == (True, "42")


async def test_a_server_down_at_start_is_unavailable_then_recovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANTHEON_TEST_MCP_TOKEN", "t")
    server = HttpServer(free_port())
    async with toolbox_for(tmp_path, _config(server.url)) as toolbox:
        assert await toolbox.definitions(["remote.*", "calculator"]) != []
        assert [d.name for d in await toolbox.definitions(["remote.*"])] == []
        result = await toolbox.call("remote__add", {"a": 1, "b": 2}, SCOPE)
        assert not result.ok
        assert "MCP server remote is unavailable" in result.content
        rows = [r for r in await toolbox.catalog() if r.source == "mcp:remote"]
        assert [(r.name, r.available) for r in rows] == [("remote.*", False)]

        server.start()
        try:
            await wait_until_available(toolbox, "remote")
            result = await toolbox.call("remote__add", {"a": 1, "b": 2}, SCOPE)
            assert (result.ok, result.content) == (True, "3")
        finally:
            server.stop()


async def test_a_server_that_dies_and_comes_back_is_reconnected(
    tmp_path: Path, http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANTHEON_TEST_MCP_TOKEN", "t")
    async with toolbox_for(tmp_path, _config(http_server.url)) as toolbox:
        assert (await toolbox.call("remote__add", {"a": 1, "b": 1}, SCOPE)).ok
        http_server.stop()
        lost = await toolbox.call("remote__add", {"a": 1, "b": 1}, SCOPE)
        assert not lost.ok
        rows = [r for r in await toolbox.catalog() if r.source == "mcp:remote"]
        assert rows
        assert not any(r.available for r in rows), "last known tools, marked unavailable"
        assert "remote.add" in [r.name for r in rows]

        http_server.start()
        await wait_until_available(toolbox, "remote")
        back = await toolbox.call("remote__add", {"a": 2, "b": 2}, SCOPE)
        assert (back.ok, back.content) == (True, "4")
