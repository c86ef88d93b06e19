"""A stdio MCP server started by Pantheon: list, call, errors, timeouts, restart, shutdown."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from pantheon.engine.tooling import ToolScope
from pantheon.live.observers.tracing_turn import traced
from pantheon.observability.trace_context import new_turn_trace
from pantheon.tools.toolbox import ToolBox
from tests.tools.conftest import FAST, STDIO_COMMAND, toolbox_for, wait_until_available

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)
CONFIG = f"""
[mcp_servers.local]
command = {STDIO_COMMAND}
env = {{ GREETING = "hi ${{PANTHEON_TEST_GREETING}}" }}
timeout_s = 1.5
"""


@pytest.fixture
async def toolbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ToolBox]:
    monkeypatch.setenv("PANTHEON_TEST_GREETING", "there")
    async with toolbox_for(tmp_path, CONFIG) as box:
        yield box


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _server_pid(toolbox: ToolBox) -> int:
    result = await toolbox.call("local__pid", {}, SCOPE)
    assert result.ok, result.content
    return int(result.content)


async def test_lists_and_calls_tools(toolbox: ToolBox) -> None:
    definitions = await toolbox.definitions(["local.*", "calculator"])
    names = [d.name for d in definitions]
    assert names[:2] == ["local__add", "local__fail"]
    assert "local__dotted_name" in names
    assert names[-1] == "calculator"
    add = next(d for d in definitions if d.name == "local__add")
    assert add.description == "Add two integers."
    assert add.parameters["required"] == ["a", "b"]

    result = await toolbox.call("local__add", {"a": 2, "b": 3}, SCOPE)
    assert (result.ok, result.content) == (True, "5")
    dotted = await toolbox.call("local__dotted_name", {}, SCOPE)
    assert dotted.content == "dotted"


async def test_env_reaches_the_child_with_variables_expanded(toolbox: ToolBox) -> None:
    result = await toolbox.call("local__env", {"name": "GREETING"}, SCOPE)
    assert result.content == "hi there"
    # Only the SDK's safe defaults and the configured env are inherited.
    leaked = await toolbox.call("local__env", {"name": "PANTHEON_TEST_GREETING"}, SCOPE)
    assert leaked.content == "<unset>"


async def test_one_tool_of_a_server_and_approvals(toolbox: ToolBox) -> None:
    definitions = await toolbox.definitions(["local.add", "local.nope", "local.pid!"])
    assert [d.name for d in definitions] == ["local__add", "local__pid"]
    assert toolbox.needs_approval(["local.add", "local.pid!"], "local__pid")
    assert not toolbox.needs_approval(["local.add", "local.pid!"], "local__add")


async def test_a_tool_that_raises_is_an_error_result(toolbox: ToolBox) -> None:
    result = await toolbox.call("local__fail", {"reason": "no such order"}, SCOPE)
    assert not result.ok
    assert "no such order" in result.content
    bad = await toolbox.call("local__add", {"a": "x"}, SCOPE)
    assert not bad.ok
    assert "validation error" in bad.content


async def test_a_hanging_tool_times_out_and_the_server_stays_usable(toolbox: ToolBox) -> None:
    result = await toolbox.call("local__hang", {}, SCOPE)
    assert not result.ok
    assert "no answer" in result.content
    after = await toolbox.call("local__add", {"a": 1, "b": 1}, SCOPE)
    assert (after.ok, after.content) == (True, "2")


async def test_results_are_capped_and_non_text_described(toolbox: ToolBox) -> None:
    big = await toolbox.call("local__big", {"size": 10_000}, SCOPE)
    assert big.ok
    assert len(big.content) == FAST.max_result_chars
    assert big.content.endswith("limit 500]")
    picture = await toolbox.call("local__picture", {}, SCOPE)
    assert picture.content == "[image image/png, 12 base64 characters, not shown]"


async def test_unknown_names_are_error_results(toolbox: ToolBox) -> None:
    result = await toolbox.call("local__nope", {}, SCOPE)
    assert (result.ok, result.content) == (False, "unknown tool 'local__nope'")
    assert not (await toolbox.call("other__add", {}, SCOPE)).ok


async def test_a_child_that_dies_is_restarted(toolbox: ToolBox) -> None:
    first = await _server_pid(toolbox)
    os.kill(first, signal.SIGKILL)
    lost = await toolbox.call("local__add", {"a": 1, "b": 2}, SCOPE)
    assert not lost.ok
    await wait_until_available(toolbox, "local")
    second = await _server_pid(toolbox)
    assert second != first
    assert not _alive(first)


async def test_the_tool_list_is_refreshed_after_its_ttl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANTHEON_TEST_GREETING", "x")
    async with toolbox_for(
        tmp_path, CONFIG, FAST.model_copy(update={"mcp_tools_ttl_s": 0.2})
    ) as toolbox:
        assert "local__late" not in [d.name for d in await toolbox.definitions(["local.*"])]
        assert (await toolbox.call("local__grow", {"name": "late"}, SCOPE)).ok
        await anyio.sleep(0.3)
        definitions = await toolbox.definitions(["local.late"])
        assert [(d.name, d.description) for d in definitions] == [
            ("local__late", "Added at runtime: late")
        ]
        result = await toolbox.call("local__late", {}, SCOPE)
        assert (result.ok, result.content) == (True, "late was added")


async def test_shutdown_terminates_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PANTHEON_TEST_GREETING", "x")
    async with toolbox_for(tmp_path, CONFIG) as toolbox:
        pid = await _server_pid(toolbox)
        assert _alive(pid)
    assert not _alive(pid)


async def test_shutdown_does_not_wait_for_calls_in_flight(tmp_path: Path) -> None:
    config = f"[mcp_servers.local]\ncommand = {STDIO_COMMAND}\ntimeout_s = 600\n"
    results = []
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg, toolbox_for(tmp_path, config) as toolbox:
            pid = await _server_pid(toolbox)

            async def hang() -> None:
                results.append(await toolbox.call("local__hang", {}, SCOPE))

            tg.start_soon(hang)
            await anyio.sleep(0.5)
            # Leaving the toolbox while the call hangs: the call ends, the child is stopped.
        assert [(r.ok, r.content) for r in results] == [
            (False, "MCP server local: hang: connection lost")
        ]
    assert not _alive(pid)


async def test_a_command_that_cannot_start_is_unavailable(tmp_path: Path) -> None:
    config = '[mcp_servers.ghost]\ncommand = ["/nonexistent/mcp-server"]\n'
    async with toolbox_for(tmp_path, config) as toolbox:
        assert await toolbox.definitions(["ghost.*"]) == []
        result = await toolbox.call("ghost__anything", {}, SCOPE)
        assert not result.ok
        rows = await toolbox.catalog()
        ghost = [r for r in rows if r.source == "mcp:ghost"]
        assert [(r.name, r.available) for r in ghost] == [("ghost.*", False)]
        assert "unavailable" not in ghost[0].description
        assert json.dumps(ghost[0].parameters) == "{}"


async def test_a_traced_turns_call_carries_its_traceparent_in_meta(toolbox: ToolBox) -> None:
    trace = new_turn_trace(None, None)
    with traced(trace):
        inside = await toolbox.call("local__traceparent", {}, SCOPE)
    outside = await toolbox.call("local__traceparent", {}, SCOPE)
    assert (inside.ok, inside.content) == (True, trace.traceparent)
    assert outside.content == "<none>"
